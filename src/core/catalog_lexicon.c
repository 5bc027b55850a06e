/* catalog_lexicon.c - the need lexicon of catalog search: single words that
 * signal what kind of server a need is for, grouped by the job they belong to.
 *
 * Where catalog_intent.c lists phrases ("post in", "txt record"), each row here
 * is one job of one category with the everyday words of people who have that
 * job - the verbs and nouns of the need, not product names ("lamp", "dim",
 * "thermostat" are a smart home; "replicas", "pods", "scale" are a cluster).
 * A query word found in a row searches the row's words (catalog_search.c adds
 * them at a weight below an intent rule's) and votes for the row's category;
 * the votes of all the words of a need are its category prior. A word may sit
 * in several rows (its votes are split between them): "cancel" is a meeting
 * or a subscription, and the other words of the need decide.
 *
 * Rows were written from the category list and the servers' jobs, so that a
 * need phrased in words no rule anticipated still lands in the right place.
 * Stemmed once per process (pthread_once); one hash lookup per query word.
 * Read-only once built; thread-safe.
 */
#include "catalog_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { DB, FILES, WEB, CODE, COMM, PROD, ANALYTICS, CLOUD, DEV, BIZ, AI, SEC, MEDIA, UTIL };

static const struct {
    int category;
    const char *means;     /* words searched for */
    const char *words;     /* words of the need */
    const char *anchors;   /* words that name the row's thing outright: a full vote */
} rows[] = {
    /* Communication */
    { COMM, "message channel chat team",
   "tell notify ping announce announcement broadcast shout post mention reply thread "
   "room chatroom teammates everyone folks crew guild community server group members "
   "update standup huddle reminder celebrate congratulate welcome dm pm inform share kudos shoutout ask", NULL },
    { COMM, "sms message phone call",
   "texting sms mobile cellphone cell number dial voicemail caller callback otp "
   "verification hotline landline whatsapp patient patients", NULL },
    { COMM, "email mail send inbox",
   "mail emails mailbox unread reply forward cc bcc draft recipient recipients "
   "subject letter correspondence sender unsubscribe", "email inbox" },
    { COMM, "customer support conversations",
   "helpdesk complaint complaints support conversation conversations agent agents", NULL },

    /* Productivity */
    { PROD, "calendar events meeting schedule",
   "meet meeting meetings sync catchup 1on1 onsite offsite lunch dinner breakfast "
   "interview webinar postpone reschedule booked calendar week weekly weekday weekend "
   "morning afternoon evening tonight noon pm am tomorrow yesterday holiday pto ooo "
   "invite invitation attendees rsvp recurring biweekly quarterly january february "
   "march april may june july august september october november december free busy conflict overlap timeslot dentist doctor haircut birthday anniversary 30min", "calendar" },
    { PROD, "tasks todo",
   "chore chores errand errands task tasks assign assignee assigned deadline due overdue "
   "priority checklist followup remind grocery groceries shopping laundry pending finish complete", NULL },
    { PROD, "issues tracker projects",
   "ticket tickets bug bugs issue issues epic story stories sprint triage backlog "
   "milestone roadmap estimate estimates", "ticket tickets bug" },
    { PROD, "boards cards",
   "kanban column lane swimlane board card cards", NULL },
    { PROD, "notes pages knowledge",
   "jot note notes idea ideas thought thoughts journal diary brainstorm memo scribble "
   "wiki page handbook playbook runbook minutes capture bookmark recipe", NULL },
    { PROD, "documents docs pages",
   "doc document write essay proposal spec writeup outline draft", NULL },
    { PROD, "sheets spreadsheets rows",
   "column columns cell cells formula vlookup tab sheet spreadsheet rows tally", "spreadsheet" },
    { PROD, "forms",
   "form forms survey surveys poll polls questionnaire feedback responses", NULL },
    { PROD, "automation workflow",
   "automate automation automatically workflow workflows zap whenever trigger triggers "
   "integrate integration glue", NULL },

    /* Files */
    { FILES, "files folder",
   "saved somewhere locate misplaced lost file folder folders directory directories desktop downloads rename copy move "
   "delete zip unzip archive path paths local disk duplicate duplicates attachment shared xlsx", NULL },
    { FILES, "convert extract text pdf markdown",
   "pdf pdfs scan scanned ocr docx pptx convert conversion epub extract parse parsing "
   "plaintext receipt", NULL },
    { FILES, "presentation slides",
   "pitch slide slides keynote deck", NULL },

    /* Web */
    { WEB, "web search",
   "google search lookup won win winner match tournament league election results look online internet news headlines latest trending happened "
   "article articles blog reviews compare best recommend cheapest deal deals "
   "everything anything sports score scores game movie lyrics population wikipedia definition fact facts tech", NULL },
    { WEB, "browser click forms pages",
   "click button buttons login signin submit website site navigate tab automate "
   "checkin portal form booking captcha register fill web", NULL },
    { WEB, "scrape extract crawl",
   "scrape scraping crawl crawling harvest collect gather listings catalogue sitemap "
   "competitor competitors careers vacancies directory", NULL },
    { WEB, "research papers academic",
   "study studies paper papers journal journals citation citations cite literature "
   "preprint thesis scientific science clinical medical disease drug trials health symptoms treatment gene protein cancer vaccine", NULL },
    { WEB, "reddit forum community",
   "subreddit subreddits redditor redditors forum forums upvote upvotes thread threads "
   "opinions recommendations recommend", "subreddit redditors" },
    { WEB, "vacation rental stays listings",
   "hotel hotels flat bedrooms lodging stay stays night nights getaway villa hostel bnb rent "
   "beach house houses sleeps guests holiday rental rentals chalet", NULL },

    /* Code */
    { CODE, "repository pull request commits",
   "pr prs merge merged branch branches commit commits diff review reviewer reviewers "
   "fork clone push pushed repo repos tag tags changelog blame contributor contributors "
   "maintainer upstream star stars pull touched authored author loader module", "repo repository repositories" },
    { CODE, "run code execute python sandbox",
   "run execute script snippet python javascript evaluate interpreter regex program", NULL },
    { CODE, "documentation library docs",
   "api reference sdk library libraries framework usage example examples tutorial", NULL },
    { CODE, "components react frontend",
   "component components navbar modal ui frontend tailwind css widget", NULL },
    { CODE, "lint code style",
   "formatting formatter prettier style warnings unused", "lint linter linting" },
    { CODE, "symbols references code",
   "function functions class classes method methods definition references rename "
   "refactor symbol callers caller implementation", NULL },

    /* Database */
    { DB, "database sql query tables",
   "query queries join joins rows column schema migration migrations "
   "orders count aggregate average sum insert upsert crud collection", "database databases db sql table tables warehouse" },
    { DB, "cache key value",
   "cache cached caching counter counters leaderboard session sessions ttl expire "
   "expiry ratelimit throttle memory", NULL },
    { DB, "vector embeddings semantic similarity search",
   "similar similarity semantic embedding embeddings meaning related resemble alike "
   "duplicate duplicates", NULL },
    { DB, "graph database nodes relationships",
   "graph relationships connected connection connections nodes", NULL },
    { DB, "slow queries index performance tuning",
   "slow index indexes explain tune tuning optimize vacuum deadlock forever", NULL },
    { DB, "time series sensor",
   "sensor sensors readings telemetry", NULL },

    /* Analytics */
    { ANALYTICS, "analytics traffic visitors reports",
   "abandon abandoned dropoff onboarding visitors visits pageviews bounce referrer referrers referral utm conversions converted "
   "trial trials signups cohort cohorts retention churn dau mau engagement funnel "
   "audience pages growth popular clicks ctr active", "analytics" },
    { ANALYTICS, "metrics dashboard",
   "dashboard dashboards metric metrics kpi kpis trend trends weekly report reports", NULL },
    { ANALYTICS, "chart visualization",
   "chart charts plot graph bar pie histogram visualize visualise", NULL },
    { ANALYTICS, "seo keywords search console",
   "seo ranking rankings keyword keywords backlinks serp organic impressions", NULL },
    { ANALYTICS, "data pipeline etl",
   "etl pipeline pipelines dag ingest ingestion transform job jobs nightly", NULL },
    { ANALYTICS, "models lineage transformations semantic layer",
   "transformation transformations lineage upstream downstream staging marts seeds snapshot snapshots", NULL },
    { ANALYTICS, "forecast prediction",
   "predict prediction projection projections demand", NULL },

    /* Cloud */
    { CLOUD, "deploy hosting",
   "deploy deployed deploying host hosting publish launch site staging production prod landing "
   "release live website ssl certificate https cdn", NULL },
    { CLOUD, "kubernetes pods cluster",
   "replica replicas pod pods node nodes cluster clusters namespace helm scale scaling "
   "autoscale container containers running vm instance instances region", "kubernetes k8s" },
    { CLOUD, "infrastructure as code terraform",
   "infrastructure provision provisioning stack stacks resources iac plan", NULL },
    { CLOUD, "cost pricing",
   "cost costs pricing price spend spending expensive cheaper ec2 paying bill bills budget budgets", NULL },
    { CLOUD, "dns domains",
   "mx spf dkim dmarc ttl propagate propagation registrar domain domains", "dns" },
    { CLOUD, "storage bucket",
   "bucket buckets upload uploads object objects backup backups", NULL },
    { CLOUD, "serverless functions",
   "function lambda serverless invoke cron", NULL },

    /* DevTools */
    { DEV, "errors exceptions crash",
   "crash crashes crashed crashing error errors exception exceptions stacktrace "
   "traceback failing broken regression throwing debug debugging leak", NULL },
    { DEV, "monitoring metrics latency traces",
   "cpu slow slower slowness latency timeout timeouts timing degraded performance uptime "
   "downtime offline down healthcheck apm trace traces requests profiling health status log logs", NULL },
    { DEV, "incidents on-call alert",
   "incident incidents outage outages oncall pager alert alerts alerting escalate "
   "postmortem sev", NULL },
    { DEV, "ci pipeline build tests",
   "ci build builds pipeline flaky test tests failed green red job qa unit e2e", NULL },
    { DEV, "feature flag rollout",
   "flag flags toggle rollout beta canary experiment gradual", NULL },
    { DEV, "api testing requests",
   "endpoint endpoints request requests curl rest response responses payload status hit", NULL },
    { DEV, "performance traces network console",
   "paint contentful lcp cls inp fcp vitals lighthouse devtools waterfall", "devtools" },
    { DEV, "docker containers",
   "docker container containers image compose", NULL },
    { DEV, "cross browser testing real devices",
   "safari firefox edge browsers devices cross", NULL },
    { DEV, "mobile app emulator",
   "android ios iphone ipad emulator simulator apk tablet", NULL },
    { DEV, "message queue",
   "queue queues broker consumer consumers backlog", NULL },

    /* Business */
    { BIZ, "payments billing subscription checkout",
   "pay paid payment payments charge charged refund refunds subscription subscriptions "
   "plan plans trial mrr arr invoice invoices card checkout coupon discount payout "
   "revenue cancel upgrade downgrade transaction transactions merchant", NULL },
    { BIZ, "accounting invoices expenses",
   "books receipt receipts reconcile tax vat ledger profit "
   "loss balance budget bank payroll salary", "expense expenses bookkeeping" },
    { BIZ, "crm contacts deals leads",
   "lead leads deal deals prospect prospects opportunity opportunities account accounts "
   "client clients contact contacts followup customer customers", NULL },
    { BIZ, "ecommerce store products orders",
   "store shop storefront product products inventory order orders cart sku", NULL },
    { BIZ, "signature contracts",
   "sign signing signed countersign nda contract contracts agreement agreements lease", NULL },
    { BIZ, "stock market quotes",
   "stock stocks ticker share portfolio market euro dollar dollars currency exchange "
   "forex fx crypto bitcoin yen pound", NULL },

    /* AI & ML */
    { AI, "memory remember",
   "remember recall forget preference preferences prefer memorize", NULL },
    { AI, "reasoning thinking",
   "think plan reason reasoning tradeoffs pros cons", NULL },
    { AI, "research answer",
   "explain research question answer summarize summary", NULL },
    { AI, "rag knowledge retrieval documents",
   "knowledge retrieval rag corpus", NULL },
    { AI, "llm traces prompts evaluation",
   "prompt prompts llm eval evals hallucination model models inference classify sentiment gpt", NULL },

    /* Security */
    { SEC, "malware threat reputation",
   "malicious malware trojan virus ransomware phishing suspicious scam spam safe unsafe "
   "dangerous attachment download exe infected breach hacked compromised exposed leak firewall", NULL },
    { SEC, "vulnerability security scan",
   "vulnerable vulnerability hardcoded insecure unsafe vulnerabilities cve cves exploit injection xss dependency "
   "dependencies patch insecure pentest owasp sast", NULL },
    { SEC, "secrets vault passwords",
   "secret secrets password passwords credential credentials token tokens key keys rotate", NULL },
    { SEC, "authentication login users",
   "login logins signin sso mfa 2fa oauth identity role roles permission permissions "
   "access admin locked lockout account", NULL },
    { SEC, "audit trail events",
   "audit compliance who", NULL },

    /* Media */
    { MEDIA, "speech voice audio",
   "voice voiceover narration narrator speak spoken audio audiobook podcast sound music song jingle sfx", NULL },
    { MEDIA, "transcription speech to text audio",
   "transcribe transcript transcription recording recordings dictation subtitles "
   "captions interview", NULL },
    { MEDIA, "image generation illustration",
   "image images picture pictures photo photos drawing draw art artwork illustration "
   "icon banner thumbnail poster wallpaper gif meme crop resize background sticker", NULL },
    { MEDIA, "transforms images videos upload",
   "crop cropping resize resizing webp png jpg jpeg avif compress compression watermark thumbnails optimize", "webp avif" },
    { MEDIA, "video editing clips",
   "video videos clip animated intro outro clips trim cut teaser trailer montage reel footage animation animate motion", NULL },
    { MEDIA, "design mockup",
   "design mockup wireframe prototype", NULL },
    { MEDIA, "diagram flowchart",
   "diagram flowchart uml sequence architecture", NULL },
    { MEDIA, "3d model render",
   "3d render scene mesh", NULL },

    /* Utilities */
    { UTIL, "time zone clock",
   "hour hours clock timezone utc gmt pst est cet midnight daylight dst", NULL },
    { UTIL, "maps directions places",
   "map maps directions route address addresses nearby distance km miles drive walk "
   "walking driving commute restaurant cafe coffee shop station located zip postcode coordinates latitude longitude geocode pharmacy hospital gas parking hike trail", NULL },
    { UTIL, "weather forecast",
   "forecast rain raining snow gloves scarf boots shorts snowing sunny hot cold degrees celsius "
   "fahrenheit umbrella wind storm humid hail frost heatwave uv sunrise sunset", "weather" },
    { UTIL, "calculator arithmetic",
   "calculate compute total average percent percentage math square root multiply "
   "divide plus minus sqrt tip", NULL },
    { UTIL, "smart home lights",
   "lamp lamps light lights dim brighten thermostat heating heater aircon fan lock "
   "door garage bedroom kitchen vacuum appliance plug switch oven tv speaker blinds curtains alarm doorbell", NULL },
    { UTIL, "flight status",
   "flight flights plane airport arrival arrivals departure departures landed landing "
   "takeoff airline gate delayed layover boarding", NULL },
    { UTIL, "shell terminal command",
   "terminal command commands bash shell process processes cpu disk memory grep ls install package brew apt pip kill port", NULL },
    { UTIL, "ssh remote server",
   "ssh remote host box vm machine", NULL },
    { UTIL, "translation language",
   "translate translation translator language languages localize localization "
   "multilingual", NULL },
    { 0, NULL, NULL, NULL },
};

#define LEX_WORDS  96
#define LEX_ANCHOR 2.0f   /* an anchor's vote, in plain words' votes */

typedef struct {
    char **means;
    size_t *means_len;
    size_t nmeans;
    int category;
} lexrow;

static struct {
    lexrow *r;
    size_t n;
    wg_strmap map;      /* word stem -> first entry of its chain */
    uint32_t *erow;     /* entry -> row */
    uint32_t *enext;    /* entry -> next entry with the same stem */
    unsigned char *eanchor;   /* entry is one of its row's anchors */
    size_t nentries;
    int ok;
} lex;
static pthread_once_t lex_once = PTHREAD_ONCE_INIT;

static int build(void)
{
    size_t n = 0, words = 0;
    char w[LEX_WORDS][WG_CAT_WORD_MAX + 4];
    while (rows[n].words) {
        words += wg_catalog__split(w, LEX_WORDS, rows[n].words);
        if (rows[n].anchors)
            words += wg_catalog__split(w, LEX_WORDS, rows[n].anchors);
        n++;
    }
    lex.r = calloc(n + 1, sizeof *lex.r);
    lex.erow = calloc(words + 1, sizeof *lex.erow);
    lex.enext = calloc(words + 1, sizeof *lex.enext);
    lex.eanchor = calloc(words + 1, 1);
    wg_strmap__init(&lex.map, 1);
    if (!lex.r || !lex.erow || !lex.enext || !lex.eanchor)
        return -1;
    size_t e = 0;
    for (size_t i = 0; i < n; i++) {
        lexrow *r = &lex.r[i];
        r->category = rows[i].category;
        size_t nm = wg_catalog__split(w, LEX_WORDS, rows[i].means);
        r->means = calloc(nm + 1, sizeof *r->means);
        r->means_len = calloc(nm + 1, sizeof *r->means_len);
        if (!r->means || !r->means_len)
            return -1;
        for (size_t k = 0; k < nm; k++) {
            if (!(r->means[k] = strdup(w[k])))
                return -1;
            r->means_len[k] = strlen(w[k]);
        }
        r->nmeans = nm;
        size_t nw = wg_catalog__split(w, LEX_WORDS, rows[i].words), nplain = nw;
        if (rows[i].anchors)
            nw += wg_catalog__split(w + nw, LEX_WORDS - nw, rows[i].anchors);
        for (size_t k = 0; k < nw; k++) {
            size_t len = strlen(w[k]);
            /* the same stem twice in one row counts once */
            uint32_t head = wg_strmap__get(&lex.map, w[k], len), dup = 0;
            for (uint32_t x = head; x != UINT32_MAX; x = lex.enext[x])
                dup |= lex.erow[x] == i;
            if (dup)
                continue;
            lex.erow[e] = (uint32_t)i;
            lex.enext[e] = UINT32_MAX;
            lex.eanchor[e] = k >= nplain;
            uint32_t old;
            if (wg_strmap__put(&lex.map, w[k], len, (uint32_t)e, &old) < 0)
                return -1;
            if (old != UINT32_MAX) {   /* append to the chain of this stem */
                while (lex.enext[old] != UINT32_MAX)
                    old = lex.enext[old];
                lex.enext[old] = (uint32_t)e;
            }
            e++;
        }
    }
    lex.n = n;
    lex.nentries = e;
    return 0;
}

static void init(void)
{
    lex.ok = build() == 0;
}

void wg_catalog__lexicon(const char *stem, size_t len, float wword, float wvote,
                         wg_cat_intent_fn fn, void *ctx)
{
    pthread_once(&lex_once, init);
    if (!lex.ok)
        return;
    uint32_t head = wg_strmap__get(&lex.map, stem, len);
    if (head == UINT32_MAX)
        return;
    size_t nrows = 0;
    for (uint32_t x = head; x != UINT32_MAX; x = lex.enext[x])
        nrows++;
    /* a word in k rows gives each of them 1/k of a vote; an anchor (a word
     * naming the row's thing: "database", "calendar") votes LEX_ANCHOR times */
    for (uint32_t x = head; x != UINT32_MAX; x = lex.enext[x]) {
        const lexrow *r = &lex.r[lex.erow[x]];
        for (size_t m = 0; m < r->nmeans; m++)
            fn(ctx, r->means[m], r->means_len[m], -1, wword);
        float vote = wvote / (float)nrows * (lex.eanchor[x] ? LEX_ANCHOR : 1.0f);
        fn(ctx, NULL, 0, r->category, vote);
    }
}
