/* catalog_vocab.c - the synonym vocabulary of catalog search.
 *
 * Each row is a group of words people use interchangeably when they ask for
 * one kind of server. A query word found in a group also searches for the
 * other words of the group at a lower weight (stemmed once per process,
 * wg_catalog__vocab_get). Words name needs, not products:
 * product names belong in an entry's keywords. A new synonym is a new word
 * in a row; a new concept is a new row.
 */
#include "catalog_internal.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *const wg_catalog__vocab[] = {
    "crash error exception bug stacktrace traceback",
    "bill billing invoice payment charge subscription subscriber checkout refund",
    "pay payment payments checkout",
    "money finance accounting bookkeeping ledger",
    "speech speak voice aloud tts narrate audio",
    "transcribe transcription dictation speech",
    "chat message messaging dm channel",
    "team teammates colleagues workspace",
    "email mail inbox",
    "sms text phone",
    "call phone telephony",
    "calendar schedule meeting event appointment",
    "task todo ticket issue",
    "kanban board project sprint backlog",
    "note notes notebook",
    "wiki docs documentation knowledge",
    "document doc word",
    "spreadsheet sheet excel table csv",
    "presentation slides deck",
    "pdf document",
    "database db sql",
    "sql query",
    "nosql document database",
    "vector embedding semantic similarity rag",
    "cache keyvalue redis",
    "search lookup",
    "web internet online website",
    "scrape scraping crawl crawler extract",
    "browser browse headless webpage click",
    "fetch download url",
    "file files folder directory disk",
    "storage bucket upload blob",
    "drive cloud storage",
    "repo repository git",
    "pull merge review",
    "deploy deployment hosting host release",
    "container docker image",
    "cluster kubernetes k8s pod",
    "infrastructure infra terraform provisioning",
    "serverless function lambda worker",
    "monitor monitoring observability uptime alert",
    "log logs logging",
    "trace tracing span apm performance",
    "metric metrics dashboard graph",
    "analytics stats statistics insight report",
    "chart plot graph visualize visualization",
    "diagram flowchart drawing",
    "design mockup prototype ui",
    "image picture photo illustration",
    "generate create produce",
    "video clip movie",
    "music song audio sound",
    "map maps location place address directions geocode route",
    "weather forecast temperature",
    "time timezone clock date",
    "translate translation language",
    "secret password credential vault key",
    "vulnerability cve security scan audit",
    "auth authentication login identity sso signin",
    "crm customer lead contact deal sales",
    "support helpdesk ticket customer",
    "marketing campaign newsletter audience",
    "shop store ecommerce commerce product order cart",
    "stock market trading finance",
    "crypto blockchain wallet token onchain ethereum",
    "memory remember recall knowledge",
    "think reason reasoning plan",
    "llm model ai gpt",
    "automation automate workflow zap trigger",
    "test testing qa e2e",
    "ci build pipeline",
    "run execute sandbox code",
    "shell terminal command bash",
    "feature flag toggle rollout",
    "math calculate calculator",
    "news article headline",
    "research paper academic scholar",
    "social twitter post tweet",
    "form survey questionnaire",
    "sign signature esignature contract",
    "hr employee recruiting hiring",
    "travel flight hotel trip",
    "email newsletter",
    "dns domain",
    NULL,
};

/* ---- the stemmed vocabulary, built once per process ----------------------- */

static wg_catalog_vocab vocab;
static int vocab_ok;
static pthread_once_t vocab_once = PTHREAD_ONCE_INIT;

static int build_vocab(wg_catalog_vocab *v)
{
    size_t nw = 0, nr = 0;
    for (size_t r = 0; wg_catalog__vocab[r]; r++, nr++)
        for (const char *p = wg_catalog__vocab[r]; *p; p++)
            if (*p != ' ' && (p == wg_catalog__vocab[r] || p[-1] == ' '))
                nw++;
    wg_strmap__init(&v->map, 0);
    v->vstem = calloc(nw + 1, sizeof *v->vstem);
    v->vlen = calloc(nw + 1, sizeof *v->vlen);
    v->vrow = calloc(nw + 1, sizeof *v->vrow);
    v->vnext = calloc(nw + 1, sizeof *v->vnext);
    v->row_start = calloc(nr + 1, sizeof *v->row_start);
    if (!v->vstem || !v->vlen || !v->vrow || !v->vnext || !v->row_start)
        return -1;
    size_t k = 0;
    for (size_t r = 0; r < nr; r++) {
        v->row_start[r] = (uint32_t)k;
        const char *p = wg_catalog__vocab[r];
        while (*p) {
            while (*p == ' ')
                p++;
            const char *s = p;
            while (*p && *p != ' ')
                p++;
            size_t len = (size_t)(p - s);
            if (len == 0 || len > WG_CAT_WORD_MAX)
                continue;
            char w[WG_CAT_WORD_MAX + 4];
            memcpy(w, s, len);
            w[len] = '\0';
            len = wg_catalog__stem(w, len);
            if (!(v->vstem[k] = strdup(w)))
                return -1;
            v->vlen[k] = len;
            v->vrow[k] = (uint32_t)r;
            uint32_t first;
            if (wg_strmap__put(&v->map, v->vstem[k], len, (uint32_t)k, &first) < 0)
                return -1;
            v->vnext[k] = UINT32_MAX;
            if (first != UINT32_MAX) {   /* append to the chain of this stem */
                uint32_t t = first;
                while (v->vnext[t] != UINT32_MAX)
                    t = v->vnext[t];
                v->vnext[t] = (uint32_t)k;
            }
            k++;
        }
    }
    v->row_start[nr] = (uint32_t)k;
    v->nvocab = k;
    v->nrows = nr;
    return 0;
}

static void vocab_init(void)
{
    vocab_ok = build_vocab(&vocab) == 0;
}

const wg_catalog_vocab *wg_catalog__vocab_get(void)
{
    pthread_once(&vocab_once, vocab_init);
    return vocab_ok ? &vocab : NULL;
}
