/* Tests for the internal growing buffer (src/core/sbuf.h): appends keep a
 * NUL, printf grows past any size, take hands over "" for nothing, and an
 * impossible size sets oom without touching what is there. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/sbuf.h"

Test(sbuf, appends_bytes_and_strings_with_a_nul)
{
    wg_sbuf b = { 0 };
    wg_sbuf__puts(&b, "ab");
    wg_sbuf__put(&b, "c\0d", 3);
    cr_assert_eq(b.len, 5);
    cr_assert_eq(memcmp(b.p, "abc\0d", 6), 0);
    cr_assert_eq(b.p[5], 0);
    char *s = wg_sbuf__take(&b);
    cr_assert_eq(b.p, NULL);
    cr_assert_eq(b.len, 0);
    free(s);
}

Test(sbuf, printf_grows_across_the_first_allocation)
{
    wg_sbuf b = { 0 };
    for (int i = 0; i < 2000; i++)
        wg_sbuf__printf(&b, "%04d,", i);
    cr_assert_eq(b.len, 2000 * 5);
    cr_assert_eq(strncmp(b.p, "0000,0001,", 10), 0);
    cr_assert_str_eq(b.p + b.len - 5, "1999,");
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    wg_sbuf__printf(&b, "[%s]", big);   /* one format far larger than the room left */
    cr_assert_eq(b.len, 2000 * 5 + 5001);
    cr_assert_eq(b.p[b.len - 1], ']');
    cr_assert_eq(strlen(b.p), b.len);
    free(wg_sbuf__take(&b));
}

Test(sbuf, take_of_nothing_is_an_empty_string)
{
    wg_sbuf b = { 0 };
    char *s = wg_sbuf__take(&b);
    cr_assert_str_eq(s, "");
    free(s);
    wg_sbuf__printf(&b, "%s", "");
    s = wg_sbuf__take(&b);
    cr_assert_str_eq(s, "");
    free(s);
}

Test(sbuf, an_impossible_size_sets_oom_and_keeps_the_bytes)
{
    wg_sbuf b = { 0 };
    wg_sbuf__puts(&b, "kept");
    wg_sbuf__put(&b, "", SIZE_MAX - 2);   /* never read: refused before any copy */
    cr_assert(b.oom);
    cr_assert_str_eq(b.p, "kept");
    wg_sbuf__puts(&b, "ignored");
    cr_assert_str_eq(b.p, "kept");
    cr_assert_eq(wg_sbuf__take(&b), NULL);   /* and the bytes are freed */
}
