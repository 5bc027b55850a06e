/* locks.c - the store's lease locks (migration 4, wg_store_lock_take) on
 * SQLite: one holder at a time, renewal by the holder, takeover only after
 * the lease ran out (bounded at N-1, N, N+1 ms), release only by the
 * holder; two processes racing for one lock never both win; and a store
 * missing a lower migration gets it even when a higher one is recorded
 * (versions land out of order across branches). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "waggle/error.h"
#include "waggle/store.h"
#include "wgtest.h"

static char *dir;
static wg_store *st;

static void setup(void)
{
    dir = wgt_tmpdir();
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
}

static void teardown(void)
{
    wg_store_free(st);
    wgt_rmtree(dir);
    free(dir);
}

TestSuite(store_locks, .init = setup, .fini = teardown);

Test(store_locks, one_holder_renewal_and_release)
{
    const int64_t t0 = 1000000;
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "a", 100, t0), 0);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "b", 100, t0 + 1), WG_EBUSY);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:other", "b", 100, t0 + 1), 0,
                 "locks are per name");
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "a", 100, t0 + 50), 0,
                 "the holder renews");
    cr_assert_eq(wg_store_lock_release(st, "oauth-refresh:google", "b"), 0);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "b", 100, t0 + 60), WG_EBUSY,
                 "a release by someone else does nothing");
    cr_assert_eq(wg_store_lock_release(st, "oauth-refresh:google", "a"), 0);
    cr_assert_eq(wg_store_lock_take(st, "oauth-refresh:google", "b", 100, t0 + 61), 0);
}

Test(store_locks, takeover_only_after_the_lease)
{
    const int64_t t0 = 5000000;
    cr_assert_eq(wg_store_lock_take(st, "l", "crashed", 100, t0), 0);     /* until t0+100 */
    cr_assert_eq(wg_store_lock_take(st, "l", "b", 100, t0 + 99), WG_EBUSY);
    cr_assert_eq(wg_store_lock_take(st, "l", "b", 100, t0 + 100), 0, "lease over at its end");
    cr_assert_eq(wg_store_lock_take(st, "l", "crashed", 100, t0 + 101), WG_EBUSY,
                 "the old holder lost it");
}

Test(store_locks, bad_arguments)
{
    cr_assert_eq(wg_store_lock_take(st, "", "a", 10, 0), WG_EINVAL);
    cr_assert_eq(wg_store_lock_take(st, "x", "", 10, 0), WG_EINVAL);
    cr_assert_eq(wg_store_lock_take(st, "x", "a", 0, 0), WG_EINVAL);
    cr_assert_eq(wg_store_lock_take(NULL, "x", "a", 10, 0), WG_EINVAL);
}

Test(store_locks, processes_never_both_win)
{
    enum { KIDS = 6 };
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    pid_t kids[KIDS];
    for (int i = 0; i < KIDS; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            close(fds[0]);
            wg_store *mine = NULL;
            if (wg_store_open(&mine, dir) < 0)
                _exit(2);
            char owner[32];
            snprintf(owner, sizeof owner, "kid-%d", i);
            int rc = wg_store_lock_take(mine, "race", owner, 60000, 0);
            char c = rc == 0 ? 'W' : rc == WG_EBUSY ? 'B' : 'E';
            if (write(fds[1], &c, 1) != 1)
                _exit(3);
            wg_store_free(mine);
            _exit(0);
        }
    }
    close(fds[1]);
    int won = 0, busy = 0;
    char c;
    while (read(fds[0], &c, 1) == 1) {
        won += c == 'W';
        busy += c == 'B';
    }
    close(fds[0]);
    for (int i = 0; i < KIDS; i++)
        waitpid(kids[i], NULL, 0);
    cr_assert_eq(won, 1, "exactly one winner, got %d", won);
    cr_assert_eq(busy, KIDS - 1);
}

static int64_t count(const char *q)
{
    wg_store_rows *rows = NULL;
    cr_assert_eq(wg_store_exec(st, q, NULL, 0, &rows, NULL), 0, "%s", wg_error_last());
    int64_t n = wg_store_rows_int(rows, 0, 0);
    wg_store_rows_free(rows);
    return n;
}

Test(store_locks, a_missing_migration_runs_even_below_a_recorded_one)
{
    /* as if this store had every migration but 4 (5 is recorded, above it) */
    cr_assert_eq(wg_store_exec(st, "DROP TABLE store_locks", NULL, 0, NULL, NULL), 0);
    cr_assert_eq(wg_store_exec(st, "DELETE FROM schema_version WHERE version = 4", NULL, 0,
                               NULL, NULL), 0);
    wg_store_free(st);
    cr_assert_eq(wg_store_open(&st, dir), 0, "%s", wg_error_last());
    cr_assert_eq(count("SELECT COUNT(*) FROM schema_version WHERE version = 4"), 1);
    cr_assert_eq(wg_store_lock_take(st, "l", "a", 10, 0), 0, "store_locks is back");
}

/* A store migrated by a newer waggle (a replica upgraded first) is refused
 * with what to do, and left as it was. */
Test(store_locks, a_store_of_a_newer_schema_is_refused_untouched)
{
    cr_assert_eq(wg_store_exec(st, "INSERT INTO schema_version (version) VALUES (999)", NULL, 0,
                               NULL, NULL), 0);
    wg_store_free(st);
    st = NULL;
    cr_assert_eq(wg_store_open(&st, dir), WG_EUNSUPPORTED);
    cr_assert(strstr(wg_error_last(), "schema version 999"), "%s", wg_error_last());
    cr_assert(strstr(wg_error_last(), "upgrade this replica"), "%s", wg_error_last());
}
