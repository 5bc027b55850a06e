-- wrk script: GET with the bearer token from WAGGLE_BENCH_TOKEN.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("WAGGLE_BENCH_TOKEN")
