-- wrk script: POST /api/gate/check with a JSON body; the token comes from
-- the environment (WAGGLE_BENCH_TOKEN).
wrk.method = "POST"
wrk.body = '{"tool":"bash","args":{"command":"git push origin main"},"autonomy":{"level":"normal"}}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("WAGGLE_BENCH_TOKEN")
