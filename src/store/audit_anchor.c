/* audit_anchor.c - what keeps the audit log from being shortened or
 * rewritten silently (waggle/audit.h, docs/store.md "Anchoring"): the
 * keyed seals on rows, the sealed anchor row that moves with every append,
 * the witness file in the data dir that remembers the sealed head outside
 * the database, the verifier that checks all three, and the operator's
 * re-anchoring. Seals are keyed BLAKE2b-256 (crypto_generichash) under a
 * key derived from the vault key; hex seals are compared in constant time.
 *
 * The witness file holds two fixed 160-byte slots, each one sealed head:
 *   "WGW1 " <rows, 20 digits> " " <head, 64 hex> " " <seal, 64 hex> pad "\n"
 * A writer replaces the slot that does not hold the best head, under
 * flock, so a torn write (power loss) costs at most the newer slot and the
 * witness only lags. It is never fsynced: lagging is allowed, getting
 * ahead of the database is not, and it is written only after a commit. */
#include "store/audit_anchor.h"
#include "store/files.h"
#include "waggle/error.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define SLOT 160
#define SLOTS 2
#define SLOT_MAGIC "WGW1 "
#define PAGE 500
#define EV_ANCHORED "audit_anchored"
#define EV_REANCHORED "audit_reanchored"

/* ---- seals ------------------------------------------------------------------ */

static const char *const domains[] = {
    [WG_AUDIT__ROW] = "waggle-audit-row-v1",
    [WG_AUDIT__ANCHOR] = "waggle-audit-anchor-v1",
    [WG_AUDIT__WITNESS] = "waggle-audit-witness-v1",
};

void wg_audit__seal(char out[WG_AUDIT__HEX], const wg_audit *a, wg_audit__domain d,
                    int64_t n, const char *hash)
{
    char num[24];
    int nl = snprintf(num, sizeof num, "%lld", (long long)n);
    unsigned char mac[32];
    crypto_generichash_state h;
    crypto_generichash_init(&h, a->key, WG_VAULT_KEY_BYTES, sizeof mac);
    crypto_generichash_update(&h, (const unsigned char *)domains[d], strlen(domains[d]));
    crypto_generichash_update(&h, (const unsigned char *)"\n", 1);
    crypto_generichash_update(&h, (const unsigned char *)num, (size_t)nl);
    crypto_generichash_update(&h, (const unsigned char *)"\n", 1);
    crypto_generichash_update(&h, (const unsigned char *)hash, strlen(hash));
    crypto_generichash_final(&h, mac, sizeof mac);
    sodium_bin2hex(out, WG_AUDIT__HEX, mac, sizeof mac);
}

static int is_hex64(const char *s)
{
    return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

static int seal_ok(const wg_audit *a, wg_audit__domain d, int64_t n, const char *hash,
                   const char *seal)
{
    if (!is_hex64(hash) || !is_hex64(seal))
        return 0;
    char want[WG_AUDIT__HEX];
    wg_audit__seal(want, a, d, n, hash);
    return sodium_memcmp(want, seal, 64) == 0;
}

/* ---- the anchor row ------------------------------------------------------------ */

typedef struct anchor {
    int present;              /* the row exists */
    int sealed;               /* its seal is not '' */
    int valid;                /* ... and verifies */
    int64_t rows;
    char head[WG_AUDIT__HEX];
} anchor;

static int anchor_read(anchor *an, wg_audit *a)
{
    memset(an, 0, sizeof *an);
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(a->st, "SELECT row_count, head, seal FROM audit_anchor WHERE id = 1",
                           NULL, 0, &rows, NULL);
    if (rc < 0)
        return rc;
    if (wg_store_rows_count(rows)) {
        const char *head = wg_store_rows_text(rows, 0, 1), *seal = wg_store_rows_text(rows, 0, 2);
        an->present = 1;
        an->rows = wg_store_rows_int(rows, 0, 0);
        an->sealed = seal && *seal;
        an->valid = an->sealed && an->rows >= 0 && seal_ok(a, WG_AUDIT__ANCHOR, an->rows, head, seal);
        snprintf(an->head, sizeof an->head, "%s", is_hex64(head) ? head : "");
    }
    wg_store_rows_free(rows);
    return 0;
}

/* NULL when the anchor describes (last_id, last_hash) exactly; else why not. */
static const char *anchor_mismatch(char *buf, size_t cap, const anchor *an, int64_t last_id,
                                   const char *last_hash)
{
    if (!an->present)
        return "its anchor row is missing";
    if (!an->sealed)
        return "its anchor is not sealed";
    if (!an->valid)
        return "the anchor's seal does not verify";
    if (an->rows != last_id || strcmp(an->head, last_hash)) {
        snprintf(buf, cap, "the anchor says %lld rows, the log ends at row %lld%s",
                 (long long)an->rows, (long long)last_id,
                 an->rows == last_id ? " with another hash" : "");
        return buf;
    }
    return NULL;
}

int wg_audit__anchor_check(wg_audit *a, int64_t *last_id, char last_hash[WG_AUDIT__HEX])
{
    anchor an;
    int rc = anchor_read(&an, a);
    if (rc < 0 || (rc = wg_audit__head(last_id, last_hash, a)) < 0)
        return rc;
    char buf[160];
    const char *why = anchor_mismatch(buf, sizeof buf, &an, *last_id, last_hash);
    if (!why)
        return 0;
    return wg_error_set(WG_ECRYPTO,
        "the audit log does not match its sealed anchor (%s), so nothing more is appended: "
        "run `waggle audit verify`, and once you know why, `waggle audit reanchor` to accept "
        "the log as it is", why);
}

/* ---- the witness file ------------------------------------------------------------ */

typedef enum { W_NONE, W_VALID, W_BAD } wstate;

typedef struct witness {
    wstate state;
    int64_t rows;
    char head[WG_AUDIT__HEX];
    int slot;                 /* the slot holding the best head */
    char why[480];            /* for W_BAD: the whole message */
} witness;

/* 1 valid (rows, head filled), 0 never written (all NUL), -1 damaged. */
static int slot_parse(const wg_audit *a, const char *b, int64_t *rows, char head[WG_AUDIT__HEX])
{
    size_t zeros = 0;
    while (zeros < SLOT && !b[zeros])
        zeros++;
    if (zeros == SLOT)
        return 0;
    if (memcmp(b, SLOT_MAGIC, 5) || b[SLOT - 1] != '\n' || b[25] != ' ' || b[90] != ' ')
        return -1;
    int64_t n = 0;
    for (int i = 5; i < 25; i++) {
        if (b[i] < '0' || b[i] > '9')
            return -1;
        n = n * 10 + (b[i] - '0');   /* 20 digits may overflow: the seal check then fails */
    }
    char h[WG_AUDIT__HEX], s[WG_AUDIT__HEX];
    memcpy(h, b + 26, 64);
    h[64] = '\0';
    memcpy(s, b + 91, 64);
    s[64] = '\0';
    for (int i = 155; i < SLOT - 1; i++)
        if (b[i] != ' ')
            return -1;
    if (n < 1 || !seal_ok(a, WG_AUDIT__WITNESS, n, h, s))
        return -1;
    *rows = n;
    memcpy(head, h, WG_AUDIT__HEX);
    return 1;
}

static void slot_format(char b[SLOT], const wg_audit *a, int64_t rows, const char *head)
{
    char seal[WG_AUDIT__HEX], line[SLOT + 1];
    wg_audit__seal(seal, a, WG_AUDIT__WITNESS, rows, head);
    int n = snprintf(line, sizeof line, SLOT_MAGIC "%020lld %s %s", (long long)rows, head, seal);
    memset(b, ' ', SLOT);
    memcpy(b, line, (size_t)n);   /* n == 155 */
    b[SLOT - 1] = '\n';
}

static void witness_scan(witness *w, const wg_audit *a, int fd)
{
    char buf[SLOT * SLOTS];
    memset(buf, 0, sizeof buf);
    ssize_t got = pread(fd, buf, sizeof buf, 0);
    int bad = 0;
    w->state = W_NONE;
    if (got < 0) {
        w->state = W_BAD;
        snprintf(w->why, sizeof w->why, "this data dir's audit witness %s cannot be read: %s",
                 a->witness, strerror(errno));
        return;
    }
    if (got % SLOT)
        bad = 1;   /* a partial slot: damaged, the other may still be valid */
    for (int i = 0; i < SLOTS; i++) {
        int64_t rows = 0;
        char head[WG_AUDIT__HEX];
        int r = (i + 1) * SLOT <= got ? slot_parse(a, buf + i * SLOT, &rows, head) : 0;
        if (r < 0)
            bad = 1;
        if (r == 1 && (w->state != W_VALID || rows > w->rows)) {
            w->state = W_VALID;
            w->rows = rows;
            w->slot = i;
            memcpy(w->head, head, WG_AUDIT__HEX);
        }
    }
    if (w->state == W_NONE && bad) {
        w->state = W_BAD;
        snprintf(w->why, sizeof w->why, "this data dir's audit witness %s does not verify: it "
                 "was forged or damaged, or sealed with another vault key", a->witness);
    }
}

/* Opens the witness without following a symlink or blocking on a FIFO and
 * checks it is a regular file of ours. Returns the fd, or -1 with w set
 * (W_NONE when it does not exist, W_BAD otherwise). */
static int witness_open(witness *w, const wg_audit *a, int flags)
{
    memset(w, 0, sizeof *w);
    struct stat sb;
    int fd = wg_files__open_ours(a->witness, flags, "this data dir's audit witness", &sb);
    if (fd == WG_ENOTFOUND)
        return -1;
    if (fd < 0) {
        w->state = W_BAD;
        snprintf(w->why, sizeof w->why, "%s", wg_error_last());
        wg_error_clear();
        return -1;
    }
    if (sb.st_mode & 077)
        (void)fchmod(fd, 0600);
    return fd;
}

static void witness_load(witness *w, const wg_audit *a)
{
    memset(w, 0, sizeof *w);
    if (!a->witness)
        return;
    int fd = witness_open(w, a, O_RDONLY);
    if (fd < 0)
        return;
    (void)flock(fd, LOCK_SH);
    witness_scan(w, a, fd);
    close(fd);
}

/* 1 when the log's row `id` has hash `hash` (committed data). */
static int row_has_hash(wg_audit *a, int64_t id, const char *hash)
{
    wg_store_rows *rows = NULL;
    wg_store_value p = WG_SV_INT(id);
    if (wg_store_exec(a->st, "SELECT hash FROM audit_log WHERE id = ?", &p, 1, &rows, NULL) < 0) {
        wg_error_clear();
        return 0;
    }
    const char *h = wg_store_rows_text(rows, 0, 0);
    int same = h && !strcmp(h, hash);
    wg_store_rows_free(rows);
    return same;
}

/* force: the operator's reanchor replaces whatever is there. prev: the
 * hash the new head chains to, as the committing transaction read it. */
static void witness_write(wg_audit *a, int64_t rows, const char *head, const char *prev,
                          int force)
{
    if (!a->witness || rows < 1)
        return;
    witness w;
    int fd = witness_open(&w, a, O_RDWR | O_CREAT);
    if (fd < 0)
        return;
    (void)flock(fd, LOCK_EX);
    witness_scan(&w, a, fd);
    int slot = 0;
    if (force) {
        if (ftruncate(fd, 0) != 0)
            goto done;
    } else if (w.state == W_BAD) {
        goto done;   /* evidence: left for verify to report */
    } else if (w.state == W_VALID) {
        /* Forward only, and only along the same chain: a witness the log
         * no longer contains (wiped or replaced database) stays frozen. */
        if (w.rows >= rows)
            goto done;
        /* The common case needs no query: the witness is the row our own
         * transaction chained the new one to. */
        if (!(w.rows == rows - 1 && prev && !strcmp(w.head, prev)) &&
            !row_has_hash(a, w.rows, w.head))
            goto done;
        slot = 1 - w.slot;
    }
    char b[SLOT];
    slot_format(b, a, rows, head);
    (void)!pwrite(fd, b, SLOT, (off_t)slot * SLOT);
done:
    (void)flock(fd, LOCK_UN);
    close(fd);
}

void wg_audit__witness_advance(wg_audit *a, int64_t rows, const char *head, const char *prev)
{
    witness_write(a, rows, head, prev, 0);
}

/* ---- walking the chain ----------------------------------------------------------- */

typedef struct walk {
    int64_t rows;             /* intact rows, = the last id */
    char head[WG_AUDIT__HEX]; /* the last row's hash */
    int64_t probe;            /* a row whose hash to capture (0 = none) */
    char probe_hash[WG_AUDIT__HEX];
    int64_t trusted;          /* unsealed leading rows */
    int broken;               /* the walk stopped at a broken row */
} walk;

#define WALK_COLS "id, ts, event, actor, tool, input, decision, rule, prev_hash, hash, seal"

static const char *text_or(const wg_store_rows *rows, size_t r, size_t c, const char *dflt)
{
    const char *t = wg_store_rows_text(rows, r, c);
    return t ? t : dflt;
}

/* Why row r is broken, or NULL. sealed_seen is updated. */
static const char *row_fault(char *buf, size_t cap, const wg_audit *a, walk *wk,
                             const wg_store_rows *rows, size_t r, int *sealed_seen, int *rc)
{
    int64_t id = wg_store_rows_int(rows, r, 0);
    const char *ph = wg_store_rows_text(rows, r, 8), *h = wg_store_rows_text(rows, r, 9);
    const char *seal = wg_store_rows_text(rows, r, 10);
    char calc[WG_AUDIT__HEX];
    if (id != wk->rows + 1)
        return "a row is missing before it (ids are not consecutive)";
    if (!ph || strcmp(ph, wk->head))
        return "its prev_hash does not match the previous row's hash";
    if ((*rc = wg_audit__row_hash(calc, wk->head, id, text_or(rows, r, 1, ""),
                                  text_or(rows, r, 2, ""), wg_store_rows_text(rows, r, 3),
                                  wg_store_rows_text(rows, r, 4), wg_store_rows_text(rows, r, 5),
                                  wg_store_rows_text(rows, r, 6),
                                  wg_store_rows_text(rows, r, 7))) < 0)
        return NULL;
    if (!h || strcmp(h, calc))
        return "its content does not match its hash (the row was edited)";
    if (!seal) {
        if (*sealed_seen)
            return "it has no seal, though the rows before it are sealed "
                   "(it was written or rewritten outside waggle)";
        wk->trusted++;
        return NULL;
    }
    if (!seal_ok(a, WG_AUDIT__ROW, id, h, seal))
        return "its seal does not match: the row was edited and re-hashed, "
               "or sealed with another vault key";
    if (!*sealed_seen && wk->trusted && strcmp(text_or(rows, r, 2, ""), EV_ANCHORED)) {
        snprintf(buf, cap, "it is the first sealed row after %lld unsealed ones, but not the "
                 EV_ANCHORED " record that anchoring writes", (long long)wk->trusted);
        return buf;
    }
    *sealed_seen = 1;
    return NULL;
}

/* Checks ids, links, hashes and seals of every row, in pages. A broken row
 * fills res (ok 0) and stops the walk; rc < 0 only when the store fails. */
static int walk_chain(walk *wk, wg_audit_verify_result *res, wg_audit *a)
{
    int sealed_seen = 0;
    snprintf(wk->head, sizeof wk->head, "%s", WG_AUDIT__ZERO_HASH);
    for (;;) {
        wg_store_value p[2] = { WG_SV_INT(wk->rows), WG_SV_INT(PAGE) };
        wg_store_rows *rows = NULL;
        int rc = wg_store_exec(a->st, "SELECT " WALK_COLS " FROM audit_log WHERE id > ?"
                               " ORDER BY id LIMIT ?", p, 2, &rows, NULL);
        if (rc < 0)
            return rc;
        size_t n = wg_store_rows_count(rows);
        for (size_t r = 0; r < n; r++) {
            char buf[200];
            const char *why = row_fault(buf, sizeof buf, a, wk, rows, r, &sealed_seen, &rc);
            if (rc < 0) {
                wg_store_rows_free(rows);
                return rc;
            }
            if (why) {
                wk->broken = 1;
                res->ok = 0;
                res->first_bad_id = wg_store_rows_int(rows, r, 0);
                snprintf(res->reason, sizeof res->reason, "row %lld: %s",
                         (long long)res->first_bad_id, why);
                wg_store_rows_free(rows);
                return 0;
            }
            wk->rows++;
            snprintf(wk->head, sizeof wk->head, "%s", wg_store_rows_text(rows, r, 9));
            if (wk->rows == wk->probe)
                memcpy(wk->probe_hash, wk->head, sizeof wk->head);
        }
        wg_store_rows_free(rows);
        if (n < PAGE)
            return 0;
    }
}

/* ---- verify ------------------------------------------------------------------------ */

static void fail(wg_audit_verify_result *res, int64_t id, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(wg_audit_verify_result *res, int64_t id, const char *fmt, ...)
{
    res->ok = 0;
    res->first_bad_id = id;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res->reason, sizeof res->reason, fmt, ap);
    va_end(ap);
}

static const char *missing(char *buf, size_t cap, int64_t n)
{
    if (n == 1)
        return "the newest row is missing";
    snprintf(buf, cap, "the newest %lld rows are missing", (long long)n);
    return buf;
}

static void check_anchor(wg_audit_verify_result *res, const anchor *an, const walk *wk,
                         const witness *w)
{
    char buf[64];
    if (!an->present)
        fail(res, 0, "the audit anchor is missing from the store (its row was deleted)");
    else if (!an->sealed)
        fail(res, 0, "the audit anchor is not sealed: it was reset outside waggle%s",
             w->state == W_VALID ? ", though this data dir witnessed a sealed log" : "");
    else if (!an->valid)
        fail(res, 0, "the audit anchor's seal does not verify: it was forged, "
                     "or sealed with another vault key");
    else if (an->rows > wk->rows)
        fail(res, wk->rows + 1, "%s: the anchor says count %lld, head %s; the log ends at row %lld",
             missing(buf, sizeof buf, an->rows - wk->rows), (long long)an->rows, an->head,
             (long long)wk->rows);
    else if (an->rows < wk->rows)
        fail(res, an->rows + 1, "row %lld: it is not covered by the sealed anchor (count %lld): "
             "rows were added outside waggle, or the anchor was rolled back",
             (long long)(an->rows + 1), (long long)an->rows);
    else if (strcmp(an->head, wk->head))
        fail(res, wk->rows, "row %lld: its hash differs from the sealed head %s: "
             "the history was rewritten", (long long)wk->rows, an->head);
}

static void check_witness(wg_audit_verify_result *res, const witness *w, const walk *wk)
{
    char buf[64];
    if (w->state == W_BAD)
        fail(res, 0, "%s", w->why);
    else if (w->state != W_VALID)
        return;
    else if (w->rows > wk->rows)
        fail(res, wk->rows + 1, "%s: this data dir witnessed count %lld, head %s; the log ends "
             "at row %lld (rows deleted; the database wiped, replaced or restored from an older "
             "copy; or its last transactions lost in a power failure)",
             missing(buf, sizeof buf, w->rows - wk->rows), (long long)w->rows, w->head,
             (long long)wk->rows);
    else if (strcmp(wk->probe_hash, w->head))
        fail(res, w->rows, "row %lld: its hash differs from the head this data dir witnessed "
             "(%s): the history was rewritten, or the database replaced",
             (long long)w->rows, w->head);
}

/* The walk and every check, in a transaction the caller opened. */
static int verify_in_tx(wg_audit_verify_result *res, anchor *an, walk *wk, wg_audit *a,
                        const witness *w)
{
    memset(res, 0, sizeof *res);
    memset(wk, 0, sizeof *wk);
    res->ok = 1;
    wk->probe = w->state == W_VALID ? w->rows : 0;
    int rc = anchor_read(an, a);
    if (rc < 0 || (rc = walk_chain(wk, res, a)) < 0)
        return rc;
    res->rows = (size_t)wk->rows;
    res->trusted_rows = wk->trusted;
    res->anchor_rows = an->present ? an->rows : -1;
    snprintf(res->anchor_head, sizeof res->anchor_head, "%s", an->head);
    res->witness_rows = w->state == W_VALID ? w->rows : 0;
    if (res->ok)
        check_anchor(res, an, wk, w);
    if (res->ok)
        check_witness(res, w, wk);
    return 0;
}

int wg_audit_verify(wg_audit_verify_result *res, wg_audit *a)
{
    if (!res || !a)
        return wg_error_set(WG_EINVAL, "wg_audit_verify: NULL argument");
    /* The witness first: it is written after each commit, so everything it
     * names is already in the snapshot taken next. */
    witness w;
    witness_load(&w, a);
    anchor an;
    walk wk;
    int rc = wg_store_begin(a->st, WG_STORE_TX_READ);
    if (rc < 0)
        return rc;
    rc = verify_in_tx(res, &an, &wk, a, &w);
    wg_store_rollback(a->st);
    return rc;
}

/* ---- sealing at open, re-anchoring ----------------------------------------------- */

static json_t *head_json(int present, int64_t rows, const char *head)
{
    return present ? json_pack("{s:I,s:s}", "rows", (json_int_t)rows, "head", head) : json_null();
}

/* Appends the sealed bookkeeping row (event, input) after the current
 * head, in the caller's write transaction. */
static int append_record(wg_audit *a, const char *event, const char *actor, json_t *input,
                         int64_t last, const char *prev, char hash[WG_AUDIT__HEX])
{
    char *text = input ? json_dumps(input, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(input);
    if (!text)
        return wg_error_set(WG_ENOMEM, "out of memory");
    wg_audit_record rec = { .event = event, .actor = actor, .decision = "ok",
                            .rule = "audit_anchor" };
    int rc = wg_audit__insert(a, last + 1, prev, &rec, text, hash);
    free(text);
    return rc;
}

static int count_sealed(int64_t *n, wg_audit *a)
{
    wg_store_rows *rows = NULL;
    int rc = wg_store_exec(a->st, "SELECT COUNT(*) FROM audit_log WHERE seal IS NOT NULL",
                           NULL, 0, &rows, NULL);
    if (rc == 0)
        *n = wg_store_rows_int(rows, 0, 0);
    wg_store_rows_free(rows);
    return rc;
}

int wg_audit__seal_on_open(wg_audit *a)
{
    anchor an;
    int rc = anchor_read(&an, a);
    if (rc < 0 || !an.present || an.sealed)
        return rc;   /* a missing anchor is for verify and append to report */
    witness w;
    witness_load(&w, a);
    if ((rc = wg_store_begin(a->st, WG_STORE_TX_WRITE)) < 0)
        return rc;
    int64_t last = 0, id = 0;
    char head[WG_AUDIT__HEX], hash[WG_AUDIT__HEX], seal[WG_AUDIT__HEX];
    if ((rc = anchor_read(&an, a)) < 0 || !an.present || an.sealed ||
        (rc = wg_audit__head(&last, head, a)) < 0)
        goto out;
    if (!last) {
        /* Sealing an empty log accepts no row: a witness of an older,
         * longer log stays as it is, and verify reports the loss. */
        wg_audit__seal(seal, a, WG_AUDIT__ANCHOR, 0, WG_AUDIT__ZERO_HASH);
        wg_store_value p[2] = { WG_SV_TEXT(WG_AUDIT__ZERO_HASH), WG_SV_TEXT(seal) };
        rc = wg_store_exec(a->st, "UPDATE audit_anchor SET row_count = 0, head = ?, seal = ?"
                           " WHERE id = 1", p, 2, NULL, NULL);
        goto out;
    }
    int64_t sealed_rows = 0;
    if ((rc = count_sealed(&sealed_rows, a)) < 0)
        goto out;
    if (sealed_rows || w.state != W_NONE) {
        /* Sealed rows, or a witness in this data dir: the log was anchored
         * before, so the anchor was reset, not migrated. Sealing now would
         * accept whatever the log became; it stays unsealed (appends are
         * refused, verify says why) until the operator reanchors. */
        goto out;
    }
    json_t *in = json_pack("{s:I,s:s,s:s}", "rows", (json_int_t)last, "head", head, "note",
                           "these rows were written before the log was anchored and are "
                           "trusted as found");
    if ((rc = append_record(a, EV_ANCHORED, "waggle", in, last, head, hash)) == 0)
        id = last + 1;
out:
    if (rc < 0) {
        wg_store_rollback(a->st);
        return rc;
    }
    if ((rc = wg_store_commit(a->st)) < 0)
        return rc;
    if (id) {
        a->sealed_legacy = last;
        wg_audit__witness_advance(a, id, hash, head);
    }
    return 0;
}

int wg_audit_reanchor(wg_audit *a, const char *actor, int64_t *id_out)
{
    if (!a)
        return wg_error_set(WG_EINVAL, "wg_audit_reanchor: NULL audit");
    witness w;
    witness_load(&w, a);
    int rc = wg_store_begin(a->st, WG_STORE_TX_WRITE);
    if (rc < 0)
        return rc;
    wg_audit_verify_result res;
    anchor an;
    walk wk;
    char hash[WG_AUDIT__HEX];
    if ((rc = verify_in_tx(&res, &an, &wk, a, &w)) < 0)
        goto fail;
    if (wk.broken) {
        /* The walk stopped at a broken row: that stays broken for good. */
        rc = wg_error_set(WG_ECRYPTO, "cannot reanchor: %s. Only a shortened, emptied or "
                          "replaced log can be accepted; an edited one stays broken", res.reason);
        goto fail;
    }
    if (a->witness) {
        /* A witness that cannot be replaced (a symlink, a FIFO, another
         * user's file) would keep verify failing: say so before changing
         * anything. */
        witness probe;
        int fd = witness_open(&probe, a, O_RDWR | O_CREAT);
        if (fd < 0 && probe.state == W_BAD) {
            rc = wg_error_set(WG_EIO, "cannot reanchor: %s; remove it first", probe.why);
            goto fail;
        }
        if (fd >= 0)
            close(fd);
    }
    wg_store_value p = WG_SV_TEXT(WG_AUDIT__ZERO_HASH);
    if ((rc = wg_store_exec(a->st, "INSERT INTO audit_anchor (id, row_count, head, seal,"
                            " updated_at) VALUES (1, 0, ?, '', '') ON CONFLICT (id) DO NOTHING",
                            &p, 1, NULL, NULL)) < 0)
        goto fail;
    json_t *in = json_pack("{s:I,s:s,s:o,s:o,s:s}", "rows", (json_int_t)wk.rows, "head", wk.head,
                           "previousAnchor", head_json(an.present && an.valid, an.rows, an.head),
                           "witness", head_json(w.state == W_VALID, w.rows, w.head),
                           "found", res.ok ? "intact" : res.reason);
    if ((rc = append_record(a, EV_REANCHORED, actor ? actor : "cli", in, wk.rows, wk.head,
                            hash)) < 0)
        goto fail;
    if ((rc = wg_store_commit(a->st)) < 0)
        return rc;
    witness_write(a, wk.rows + 1, hash, NULL, 1);
    if (id_out)
        *id_out = wk.rows + 1;
    return 0;
fail:
    wg_store_rollback(a->st);
    return rc;
}
