/* Tests for the shell model's bounds (issue #10 §1): every limit at N-1, N
 * and N+1, nothing past a limit is dropped silently (it fails closed, and
 * a never-autopass signal anywhere keeps it critical), the realistic long
 * commands that used to overflow the stack, and linear work in the size of
 * the command, counted in lexer steps (no wall-time asserts). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/shell/internal.h"
#include "waggle/shell.h"

/* ---- a growable string --------------------------------------------------- */

typedef struct {
    char *p;
    size_t n, cap;
} sb;

static void sb_add(sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        cr_assert_not_null(b->p);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

static void sb_cat(sb *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

static void sb_rep(sb *b, const char *s, size_t times)
{
    for (size_t i = 0; i < times; i++)
        sb_cat(b, s);
}

static void sb_free(sb *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static wg_shell_verdict an(const sb *b)
{
    wg_shell_verdict v;
    cr_assert_eq(wg_shell_analyze(&v, b->p, b->n), 0);
    cr_assert_not_null(v.rule);
    cr_assert(v.reason[0] != '\0');
    return v;
}

static void expect(const sb *b, wg_shell_class cls, const char *rule, const char *what)
{
    wg_shell_verdict v = an(b);
    cr_expect_eq(v.cls, cls, "%s (%zu bytes): got %s (%s: %s)", what, b->n,
                 wg_shell_class_name(v.cls), v.rule, v.reason);
    if (rule)
        cr_expect_str_eq(v.rule, rule, "%s (%zu bytes): %s", what, b->n, v.reason);
}

/* ---- the command size ------------------------------------------------------ */

/* "ls " then one long plain word, total len bytes */
static void long_ls(sb *b, size_t len)
{
    b->n = 0;
    sb_cat(b, "ls ");
    while (b->n < len)
        sb_cat(b, "a");
}

Test(shell_limits, command_size_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    long_ls(&b, WG_SHELL_MAX_COMMAND - 1);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 bytes");
    long_ls(&b, WG_SHELL_MAX_COMMAND);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N bytes");
    long_ls(&b, WG_SHELL_MAX_COMMAND + 1);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "N+1 bytes");
    /* a never-autopass signal anywhere in what was read keeps it critical */
    b.n = 0;
    sb_cat(&b, "ls ");
    while (b.n < WG_SHELL_MAX_COMMAND)
        sb_cat(&b, "aaaaaaa ");
    sb_cat(&b, "; sudo reboot");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "N+ bytes with sudo at the end");
    sb_free(&b);
}

Test(shell_limits, one_mebibyte_fails_closed)
{
    sb b = { 0 };
    sb_cat(&b, "git add");
    while (b.n < (1u << 20))
        sb_cat(&b, " src/some/dir/file.c");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "1 MiB of git add");
    sb_cat(&b, " && git push --force origin main");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "1 MiB then a force push");
    sb_free(&b);
}

/* ---- words per command ------------------------------------------------------ */

static void words(sb *b, const char *prog, size_t nwords, const char *last)
{
    b->n = 0;
    sb_cat(b, prog);
    for (size_t i = 1; i + (last ? 1 : 0) < nwords; i++)
        sb_cat(b, " a");
    if (last) {
        sb_cat(b, " ");
        sb_cat(b, last);
    }
}

Test(shell_limits, words_per_command_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    words(&b, "ls", SH_MAX_WORDS - 1, NULL);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 words");
    words(&b, "ls", SH_MAX_WORDS, NULL);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N words");
    words(&b, "ls", SH_MAX_WORDS + 1, NULL);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "N+1 words");
    /* the word past the limit is not lost: rm -rf a ... a ~ */
    words(&b, "rm -rf", SH_MAX_WORDS - 1, "~");
    expect(&b, WG_SHELL_CRITICAL, "critical.rm_home", "rm -rf with ~ as word N");
    words(&b, "rm -rf", SH_MAX_WORDS + 1, "~");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "rm -rf with ~ as word N+1");
    sb_free(&b);
}

Test(shell_limits, issue_examples_keep_the_last_word)
{
    sb b = { 0 };
    sb_cat(&b, "rm -rf");
    for (int i = 0; i < 100; i++) {
        char w[16];
        snprintf(w, sizeof w, " d%d", i);
        sb_cat(&b, w);
    }
    sb_cat(&b, " ~");
    expect(&b, WG_SHELL_CRITICAL, "critical.rm_home", "rm -rf d0 ... d99 ~");
    b.n = 0;
    sb_cat(&b, "rm -rf");
    for (int i = 0; i < 5000; i++) {
        char w[16];
        snprintf(w, sizeof w, " d%d", i);
        sb_cat(&b, w);
    }
    sb_cat(&b, " / d5001");
    expect(&b, WG_SHELL_CRITICAL, "critical.rm_root", "rm -rf d0 ... d4999 / d5001");
    sb_free(&b);
}

/* The commands of the issue that smashed the stack. */
Test(shell_limits, realistic_long_commands_are_decided_exactly)
{
    sb b = { 0 };
    sb_cat(&b, "git add");
    for (int i = 0; i < 400; i++) {
        char w[64];
        snprintf(w, sizeof w, " src/module_%03d/file_with_long_name_%03d.c", i, i);
        sb_cat(&b, w);
    }
    cr_assert_gt(b.n, 14000);
    expect(&b, WG_SHELL_RISKY, "bash.git", "git add with 400 paths");
    b.n = 0;
    sb_cat(&b, "rm -f");
    for (int i = 0; i < 700; i++) {
        char w[64];
        snprintf(w, sizeof w, " build/obj/unit_%04d.o", i);
        sb_cat(&b, w);
    }
    expect(&b, WG_SHELL_RISKY, "bash.delete", "rm -f with 700 object files");
    b.n = 0;
    sb_cat(&b, "ls");
    for (int i = 0; i < 2100; i++)
        sb_cat(&b, " word");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "ls with 2,100 words");
    /* 64 KiB: one here-document body */
    b.n = 0;
    sb_cat(&b, "cat > notes.txt <<'EOF'\n");
    while (b.n < 65536)
        sb_cat(&b, "a line of notes that says rm -rf / and sudo, but only as text\n");
    sb_cat(&b, "EOF\nwc -l notes.txt");
    expect(&b, WG_SHELL_RISKY, "bash.writes_file", "64 KiB here-document");
    sb_free(&b);
}

/* ---- commands per decision ----------------------------------------------- */

Test(shell_limits, commands_per_decision_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    sb_rep(&b, "ls;", SH_MAX_COMMANDS - 1);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 commands");
    sb_cat(&b, "ls;");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N commands");
    sb_cat(&b, "ls;");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "N+1 commands");
    sb_cat(&b, "sudo ls");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "N+2 commands, the last sudo");
    sb_free(&b);
}

/* ---- nesting --------------------------------------------------------------- */

/* echo $( $( ... ls ... ) ): levels nested lists below the top one */
static void cmdsubs(sb *b, int levels, const char *inner)
{
    b->n = 0;
    sb_cat(b, "echo ");
    for (int i = 0; i < levels; i++)
        sb_cat(b, i + 1 < levels ? "$(echo " : "$(");
    sb_cat(b, inner);
    sb_rep(b, ")", (size_t)levels);
}

Test(shell_limits, list_nesting_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    cmdsubs(&b, SH_MAX_DEPTH - 2, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 lists");
    cmdsubs(&b, SH_MAX_DEPTH - 1, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N lists");
    cmdsubs(&b, SH_MAX_DEPTH, "ls");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "N+1 lists");
    cmdsubs(&b, SH_MAX_DEPTH - 1, "sudo ls");
    expect(&b, WG_SHELL_CRITICAL, "critical.privilege", "sudo N lists deep");
    cmdsubs(&b, SH_MAX_DEPTH, "sudo ls");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "sudo N+1 lists deep");
    sb_free(&b);
}

/* echo ${a:-"${a:-"...x..."}"}: depth levels of ${ and " inside one word */
static void word_nesting(sb *b, int depth)
{
    b->n = 0;
    sb_cat(b, "echo ");
    for (int i = 0; i < depth; i++)
        sb_cat(b, i % 2 == 0 ? "${a:-" : "\"");
    sb_cat(b, "x");
    for (int i = depth - 1; i >= 0; i--)
        sb_cat(b, i % 2 == 0 ? "}" : "\"");
}

Test(shell_limits, word_nesting_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    word_nesting(&b, SH_MAX_LEX_DEPTH - 1);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 levels in a word");
    word_nesting(&b, SH_MAX_LEX_DEPTH);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N levels in a word");
    word_nesting(&b, SH_MAX_LEX_DEPTH + 1);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "N+1 levels in a word");
    /* 50,000 levels: bounded recursion, no stack overflow */
    word_nesting(&b, 50000);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "50,000 levels in a word");
    sb_free(&b);
}

/* env env ... PROG: wrappers views around PROG (the first view is PROG's
 * own command) */
static void wrappers(sb *b, int views, const char *prog)
{
    b->n = 0;
    sb_rep(b, "env ", (size_t)views - 1);
    sb_cat(b, prog);
}

Test(shell_limits, wrapper_nesting_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    wrappers(&b, SH_MAX_VIEW_DEPTH - 1, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 views");
    wrappers(&b, SH_MAX_VIEW_DEPTH, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N views");
    wrappers(&b, SH_MAX_VIEW_DEPTH + 1, "ls");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "N+1 views");
    wrappers(&b, SH_MAX_VIEW_DEPTH + 1, "rm -rf ~");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "rm -rf ~ behind N+1 views");
    /* 50,000 wrappers: bounded recursion and linear work */
    wrappers(&b, 50000, "ls");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "50,000 wrappers");
    b.n = 0;
    sb_rep(&b, "find . -exec ", 20000);
    sb_cat(&b, "ls");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "20,000 nested find -exec");
    sb_free(&b);
}

/* ---- here-documents ------------------------------------------------------ */

static void heredocs(sb *b, int count)
{
    b->n = 0;
    sb_cat(b, "cat");
    for (int i = 0; i < count; i++)
        sb_cat(b, " <<E");
    sb_cat(b, "\n");
    for (int i = 0; i < count; i++)
        sb_cat(b, "text\nE\n");
    sb_cat(b, "ls");
}

Test(shell_limits, pending_heredocs_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    heredocs(&b, SH_MAX_HEREDOCS - 1);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 here-docs");
    heredocs(&b, SH_MAX_HEREDOCS);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N here-docs");
    heredocs(&b, SH_MAX_HEREDOCS + 1);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "N+1 here-docs");
    sb_free(&b);
}

static void delimiter(sb *b, size_t len)
{
    b->n = 0;
    char d[256];
    memset(d, 'D', len);
    d[len] = '\0';
    sb_cat(b, "cat <<");
    sb_cat(b, d);
    sb_cat(b, "\nbody\n");
    sb_cat(b, d);
    sb_cat(b, "\nls");
}

Test(shell_limits, heredoc_delimiter_length_at_n_minus_1_n_and_n_plus_1)
{
    /* N = SH_MAX_DELIM - 1 bytes is the longest delimiter */
    sb b = { 0 };
    delimiter(&b, SH_MAX_DELIM - 2);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "delimiter N-1");
    delimiter(&b, SH_MAX_DELIM - 1);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "delimiter N");
    delimiter(&b, SH_MAX_DELIM);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "delimiter N+1");
    sb_free(&b);
}

/* ---- redirections, functions, scratch ------------------------------------ */

static void redirs(sb *b, int count, const char *last)
{
    b->n = 0;
    sb_cat(b, "ls");
    for (int i = 0; i < count - (last ? 1 : 0); i++)
        sb_cat(b, "<a");
    if (last)
        sb_cat(b, last);
}

Test(shell_limits, redirections_at_n_minus_1_n_and_n_plus_1)
{
    /* a short command has SH_STACK_REDIRS redirections of scratch */
    sb b = { 0 };
    redirs(&b, SH_STACK_REDIRS - 1, NULL);
    cr_assert_leq(b.n, SH_STACK_INPUT);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 redirections");
    redirs(&b, SH_STACK_REDIRS, NULL);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N redirections");
    redirs(&b, SH_STACK_REDIRS + 1, NULL);
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.too_complex", "N+1 redirections");
    /* the one that did not fit is not dropped silently */
    redirs(&b, SH_STACK_REDIRS + 1, ">/dev/sda");
    expect(&b, WG_SHELL_CRITICAL, "critical.unparsed_signal", "N+1st redirection to a disk");
    redirs(&b, SH_STACK_REDIRS, ">/dev/sda");
    expect(&b, WG_SHELL_CRITICAL, "critical.raw_disk_write", "Nth redirection to a disk");
    /* a long command has room for a redirection per word */
    b.n = 0;
    sb_cat(&b, "ls");
    for (int i = 0; i < 3000; i++)
        sb_cat(&b, " 2>/dev/null");
    sb_cat(&b, " >~/notes.txt");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.write_outside_project", "3,001 redirections");
    sb_free(&b);
}

Test(shell_limits, any_number_of_functions_is_remembered)
{
    sb b = { 0 };
    for (int i = 0; i < 5000; i++) {
        char d[48];
        snprintf(d, sizeof d, "f%d(){ echo %d; }; ", i, i);
        sb_cat(&b, d);
    }
    sb_cat(&b, "f4999(){ f4999|f4999& }; f4999");
    expect(&b, WG_SHELL_CRITICAL, "critical.fork_bomb", "a fork bomb after 5,000 functions");
    sb_free(&b);
}

Test(shell_limits, scratch_exhaustion_fails_closed)
{
    /* each eval re-reads the words above the ones before: more text than
     * the scratch sized from the input holds */
    sb b = { 0 };
    sb_rep(&b, "eval ", 7);
    sb_rep(&b, "~ ", 20000);
    wg_shell_verdict v = an(&b);
    cr_expect_geq(v.cls, WG_SHELL_DESTRUCTIVE, "%s: %s", v.rule, v.reason);
    sb_free(&b);
}

/* ---- linear work --------------------------------------------------------- */

typedef struct {
    const char *name;
    const char *head, *unit, *tail;
} shape;

/* Inputs that were quadratic, or could be: each unit repeated. */
static const shape shapes[] = {
    { "one long word", "ls ", "a", "" },
    { "many words", "ls", " a", "" },
    { "brackets", "ls ", "[", "" },
    { "braces", "ls ", "{", "" },
    { "brace lists", "ls ", "{a,", "" },
    { "stars", "ls ", "*", "" },
    { "quoted words", "ls", " 'a b'", "" },
    { "double quotes", "ls", " \"a$b\"", "" },
    { "params", "ls", " ${a:-b}", "" },
    { "ansi", "ls", " $'\\x41'", "" },
    { "tilde", "ls", " ~", "" },
    { "comments", "ls #", "a", "" },
    { "continuations", "ls", " \\\n", "" },
    { "redirections", "ls", " 2>/dev/null", "" },
    { "here-doc lines", "cat <<E\n", "line\n", "E\n" },
    { "here-docs", "", "cat <<E\nx\nE\n", "" },
    { "commands", "", "ls;", "" },
    { "pipes", "", "echo a | ", "cat" },
    { "echo into sh", "", "echo ls | sh; ", "" },
    { "cmdsubs", "", "echo $(ls); ", "" },
    { "backticks", "", "echo `ls`; ", "" },
    { "sh -c", "", "sh -c 'ls -l'; ", "" },
    { "eval", "", "eval ls; ", "" },
    { "functions", "", "f(){ ls; }; ", "" },
    { "arrays", "", "a=(x y z); ", "" },
    { "wrappers", "", "env nice ls; ", "" },
    { "find -exec", "find .", " -exec ls {} ;", "" },
    { "rm targets", "rm -rf", " build", "" },
    { "unterminated quote then delete", "'", "delete ", "" },
    { "unparsed signal tokens", "'", "reg delete x ", "" },
    { "unparsed fork signature", "'", "f(){ ", "" },
    { "over the limit", "ls ", "a b delete ", "" },
    /* the model's expansions and syntax (issue #10 §2) */
    { "variables", "", "X=ab; echo $X; ", "" },
    { "variable appends", "", "X+=ab; ", "echo $X" },
    { "array lookups", "a=(x y z w); ", "echo ${a[3]}; ", "" },
    { "long array lookups", "a=(x y z w x y z w x y z w x y z w x y z w x y z w); ", "echo ${a[23]}; ", "" },
    { "defaults", "", "echo ${X:-a}; ", "" },
    { "brace words", "", "echo {a,b}{c,d}; ", "" },
    { "brace sequences", "", "echo {1..9}; ", "" },
    { "ifs splits", "ls", "${IFS}a", "" },
    { "case arms", "case x in ", "a) ls;; ", "esac" },
    { "conditions", "", "[[ -f x && $y == z ]] && ls; ", "" },
    { "arithmetic", "", "(( i++ )); ", "" },
    { "for arithmetic", "", "for ((i=0;i<1;i++)); do ls; done; ", "" },
    { "function calls", "", "f(){ g; h | k; }; ", "" },
    { "call graph", "", "a(){ b|b & }; b(){ a & }; ", "" },
    { "echo -e into sh", "", "echo -e 'ls\\tx' | sh; ", "" },
    { "printf formats", "printf '%s' ", "a ", " | sh" },
    { "cat here-doc into sh", "", "cat <<E | sh\nls\nE\n", "" },
    { "aliases", "alias a='ls -l'; ", "a x; ", "" },
    { "which", "", "$(which ls) -l; ", "" },
    { "let", "", "let x=1+2; ", "" },
    { "coproc", "", "coproc ls; ", "" },
    { "runs its arguments", "run(){ \"$@\"; }; ", "run ls -l; ", "" },
};

static uint64_t steps_for(const shape *sh, size_t units, size_t *len)
{
    sb b = { 0 };
    sb_cat(&b, sh->head);
    sb_rep(&b, sh->unit, units);
    sb_cat(&b, sh->tail);
    wg_shell_verdict v;
    uint64_t steps = 0;
    cr_assert_eq(sh_analyze_counted(&v, b.p, b.n, &steps), 0);
    *len = b.n;
    sb_free(&b);
    return steps;
}

Test(shell_limits, work_is_linear_in_the_command_size)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const shape *sh = &shapes[i];
        size_t ulen = strlen(sh->unit);
        /* three sizes, the largest just past the size limit for "over the limit" */
        size_t small = (strcmp(sh->name, "over the limit") == 0 ? 300000 : 16384) / ulen;
        size_t l1, l2, l3;
        uint64_t s1 = steps_for(sh, small, &l1);
        uint64_t s2 = steps_for(sh, small * 2, &l2);
        uint64_t s3 = steps_for(sh, small * 4, &l3);
        cr_expect_gt(s1, 0, "%s: no steps counted", sh->name);
        /* doubling the input at most doubles the work (plus a constant) */
        cr_expect_leq(s2, 2 * s1 + s1 / 8 + 64, "%s: %zu bytes %llu steps, %zu bytes %llu steps",
                      sh->name, l1, (unsigned long long)s1, l2, (unsigned long long)s2);
        cr_expect_leq(s3, 2 * s2 + s2 / 8 + 64, "%s: %zu bytes %llu steps, %zu bytes %llu steps",
                      sh->name, l2, (unsigned long long)s2, l3, (unsigned long long)s3);
        /* and the work per byte is bounded */
        cr_expect_leq(s3, 64 * (uint64_t)l3, "%s: %llu steps for %zu bytes", sh->name,
                      (unsigned long long)s3, l3);
    }
}

/* Backstop without a timing assert: the largest inputs of every shape (the
 * quadratic versions took minutes) finish within Criterion's timeout, also
 * under ASan. */
Test(shell_limits, largest_inputs_of_every_shape_finish, .timeout = 120)
{
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        size_t len;
        size_t units = (WG_SHELL_MAX_COMMAND - 64) / strlen(shapes[i].unit);
        (void)steps_for(&shapes[i], units, &len);
        (void)steps_for(&shapes[i], (1u << 20) / strlen(shapes[i].unit), &len);
    }
}

/* ---- compound nesting, symbol probes, the work budget ----------------------- */

static void groups(sb *b, int depth, const char *inner)
{
    b->n = 0;
    sb_rep(b, "{ ", (size_t)depth);
    sb_cat(b, inner);
    sb_rep(b, "; }", (size_t)depth);
}

Test(shell_limits, group_nesting_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    groups(&b, SH_MAX_LEX_DEPTH - 1, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 groups");
    groups(&b, SH_MAX_LEX_DEPTH, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N groups");
    groups(&b, SH_MAX_LEX_DEPTH + 1, "ls");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "N+1 groups");
    groups(&b, SH_MAX_LEX_DEPTH + 1, "sudo ls");
    expect(&b, WG_SHELL_CRITICAL, NULL, "sudo in N+1 groups");
    sb_free(&b);
}

static void cases(sb *b, int depth, const char *inner)
{
    b->n = 0;
    sb_rep(b, "case a in a) ", (size_t)depth);
    sb_cat(b, inner);
    sb_rep(b, " ;; esac", (size_t)depth);
}

Test(shell_limits, case_nesting_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    cases(&b, SH_MAX_LEX_DEPTH - 1, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 cases");
    cases(&b, SH_MAX_LEX_DEPTH, "ls");
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N cases");
    cases(&b, SH_MAX_LEX_DEPTH + 1, "ls");
    expect(&b, WG_SHELL_DESTRUCTIVE, "bash.unparsed", "N+1 cases");
    sb_free(&b);
}

/* the symbol table's hash (shell_vars.c), to make names that collide */
static uint32_t var_slot(const char *s, uint32_t mask)
{
    uint32_t h = 2166136261u ^ 2u;      /* SH_SYM_VAR */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h & mask;
}

static void colliding(sb *b, int count)
{
    b->n = 0;
    int found = 0;
    char name[16];
    for (unsigned i = 0; found < count; i++) {
        snprintf(name, sizeof name, "v%u", i);
        if (var_slot(name, 511) != 7)   /* the stack arena's table has 512 slots */
            continue;
        found++;
        sb_cat(b, name);
        sb_cat(b, "=ls;");
    }
    sb_cat(b, "$");
    sb_cat(b, name);                    /* the last one: resolvable or failing closed */
    cr_assert_leq(b->n, SH_STACK_INPUT);
}

Test(shell_limits, colliding_names_at_n_minus_1_n_and_n_plus_1)
{
    sb b = { 0 };
    colliding(&b, SH_MAX_PROBES - 1);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N-1 colliding names");
    colliding(&b, SH_MAX_PROBES);
    expect(&b, WG_SHELL_SAFE, "bash.safe", "N colliding names");
    colliding(&b, SH_MAX_PROBES + 1);     /* the name is not held: $name is unseen */
    expect(&b, WG_SHELL_CRITICAL, "critical.hidden_program", "N+1 colliding names");
    sb_free(&b);
}

Test(shell_limits, work_past_the_budget_fails_closed)
{
    /* each ${a[999]} scans a 4 KiB array: more work than the budget allows */
    sb b = { 0 };
    sb_cat(&b, "a=(");
    for (int i = 0; i < 1000; i++)
        sb_cat(&b, " x");
    sb_cat(&b, " ls); ");
    while (b.n < WG_SHELL_MAX_COMMAND - 32)
        sb_cat(&b, "echo ${a[999]}; ");
    wg_shell_verdict v;
    uint64_t steps;
    cr_assert_eq(sh_analyze_counted(&v, b.p, b.n, &steps), 0);
    cr_expect_eq(v.cls, WG_SHELL_DESTRUCTIVE, "%s: %s", v.rule, v.reason);
    cr_expect_str_eq(v.rule, "bash.too_complex");
    cr_expect_leq(steps, (uint64_t)SH_WORK_PER_BYTE * b.n + (1u << 20) + 64 * b.n, "%llu steps for %zu bytes", (unsigned long long)steps, b.n);
    sb_free(&b);
}
