/* hook_spawn.c - start-to-answer time of a hook command (issue #14 §3): runs
 * CMD with stdin from FILE and stdout to /dev/null, as a coding agent runs
 * its hook, RUNS times after WARMUP runs, and prints the wall time of each
 * fork -> exit (median, p90, mean, min) in milliseconds. bench/hook.sh runs
 * it for waggle-hook and for `waggle --version` (the baseline) in one go.
 *
 * usage: hook_spawn RUNS FILE CMD [ARGS...] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WARMUP = 20, RUNS_MAX = 100000 };

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double one(const char *file, char **argv, int *status)
{
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        int in = open(file, O_RDONLY), out = open("/dev/null", O_WRONLY);
        if (in < 0 || out < 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        execv(argv[0], argv);
        _exit(127);
    }
    waitpid(pid, status, 0);
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: hook_spawn RUNS FILE CMD [ARGS...]\n");
        return 2;
    }
    int runs = atoi(argv[1]);
    if (runs < 1 || runs > RUNS_MAX) {
        fprintf(stderr, "hook_spawn: RUNS must be 1..%d\n", RUNS_MAX);
        return 2;
    }
    double *t = malloc(sizeof *t * (size_t)runs), sum = 0;
    int status = 0;
    if (!t)
        return 1;
    for (int i = 0; i < WARMUP; i++)
        one(argv[2], argv + 3, &status);
    for (int i = 0; i < runs; i++) {
        t[i] = one(argv[2], argv + 3, &status);
        sum += t[i];
        if (!WIFEXITED(status) || WEXITSTATUS(status) > 3) {
            fprintf(stderr, "hook_spawn: %s exited with status %d\n", argv[3], status);
            return 1;
        }
    }
    qsort(t, (size_t)runs, sizeof *t, cmp);
    printf("median=%.3f p90=%.3f mean=%.3f min=%.3f runs=%d\n", t[runs / 2],
           t[(size_t)runs * 9 / 10], sum / runs, t[0], runs);
    free(t);
    return 0;
}
