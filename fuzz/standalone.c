/* standalone.c - replays fuzz inputs without libFuzzer: every file named on the
 * command line, or every file inside a named directory, is passed once to
 * LLVMFuzzerTestOneInput. ctest runs it over fuzz/corpus/<target>/ so past
 * crashes stay regression tests in every build, sanitizers included. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    size_t got = buf ? fread(buf, 1, (size_t)(n > 0 ? n : 0), f) : 0;
    fclose(f);
    if (!buf)
        return -1;
    LLVMFuzzerTestOneInput(buf, got);
    free(buf);
    return 0;
}

int main(int argc, char **argv)
{
    int count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue;                     /* an absent corpus is an empty one */
        if (!S_ISDIR(st.st_mode)) {
            count += run_file(argv[i]) == 0;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            count += run_file(path) == 0;
        }
        if (d)
            closedir(d);
    }
    printf("replayed %d inputs\n", count);
    return 0;
}
