/*
 * Local-size variants (docs/compiler.md, "Local-size variants"): a kernel launched again
 * and again with one local size gets a second work-group function built for that size, and
 * for a zero global offset when its launches have one, so that its work-item loops have
 * constant trip counts and its get_local_size() and get_global_offset() reads are constants.
 * A kernel with image arguments has its variants built for the image formats of its launches
 * as well (their channel order and data type): the kernel library's texel functions then
 * need no switch on them, and each pixel access is straight-line code. A launch with other
 * formats counts towards a variant of its own.
 *
 * Per program kernel (its index in the program's executable, shared by every cl_kernel made
 * from it) a table of KILN_RT_VARIANTS entries counts the launches of each key (local size,
 * offset is zero, image formats: struct kiln_rt_variant_key) whose groups are all full. On the
 * KILN_VARIANTS-th launch of a key (default 4) the variant is queued for the background
 * builder, a thread of its own that runs the compiler's build_variant() of the program's
 * source and options with the kernel and the key; that launch and the ones after it run the
 * generic function until the variant is READY, so no launch waits for the compiler
 * (KILN_VARIANT_BUILD=sync builds it on the launching thread instead, which then runs it).
 * The kernel cache keys entries on the variant as well, so each variant is cached like a
 * program and a later process loads it instead of compiling. The variant's program lives as
 * long as the program's executable: commands that use it hold their kernel, which holds the
 * program.
 *
 * Only programs built from source have variants: a binary's or a linked program's
 * executable has no source to build one from. A variant that fails to build (the compiler
 * refuses variants of programs with program-scope variables) is remembered and never tried
 * again; its launches keep the generic function. So is a pair a variant would add nothing to
 * (a required work-group size, all groups full, a non-zero offset), without a build.
 *
 * Locking: the table is under the program's lock, a leaf; the builder's lock is another leaf,
 * never held with it. The build runs without either: the entry is BUILDING meanwhile, so no
 * other thread builds the same variant, and the other launches of that pair use the generic
 * function until it is READY. Entries are never moved while BUILDING, and the table is freed
 * only with the executable, which is not replaced while a kernel object (such as the
 * launching thread's) exists nor before the builder has given back the program's jobs
 * (kiln_rt_variant_jobs_cancel), and not destroyed while a job holds it. A READY or FAILED
 * entry never changes again, so a launch of its pair finds it without the lock (settled()):
 * once a pair is settled its launches cost a scan of four entries, no lock, or two
 * comparisons when the kernel object's last launch settled on the same entry (last_variant).
 */
#include "rt_variant.h"
#include "rt_debug.h"
#include "rt_mem.h"
#include "rt_program.h"

#include "kiln_alloc.h"
#include "kiln_cc.h"
#include "kiln_image.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* 0 (variants off) or the launch count at which a variant is built: KILN_VARIANTS. */
static unsigned threshold;
/* KILN_VARIANT_BUILD=sync: the launch that reaches the count builds the variant and runs it. */
static bool sync_builds;
static pthread_once_t threshold_once = PTHREAD_ONCE_INIT;

static void read_threshold(void)
{
    const char *how = getenv("KILN_VARIANT_BUILD");
    sync_builds = how && strcmp(how, "sync") == 0;
    const char *env = getenv("KILN_VARIANTS");
    threshold = KILN_RT_VARIANT_LAUNCHES;
    if (!env || !*env)
        return;
    if (strcmp(env, "off") == 0) {
        threshold = 0;
        return;
    }
    char *end;
    unsigned long n = strtoul(env, &end, 10);
    if (*end == '\0' && n <= 1000000)
        threshold = (unsigned)n;
}

void kiln_rt_variants_free(struct kiln_rt_variant *table, unsigned rows)
{
    const struct kiln_cc_interface *cc = NULL;
    if (!table || kiln_rt_compiler(&cc) != CL_SUCCESS) {
        free(table);
        return;
    }
    for (unsigned i = 0; i < rows * KILN_RT_VARIANTS; i++)
        if (table[i].built)
            cc->destroy(table[i].built);
    free(table);
}

/* Field by field: the key's padding is not compared. */
static bool same_key(const struct kiln_rt_variant_key *a, const struct kiln_rt_variant_key *b)
{
    if (a->zero_offset != b->zero_offset || a->num_images != b->num_images ||
        memcmp(a->local, b->local, sizeof(a->local)) != 0)
        return false;
    for (unsigned i = 0; i < a->num_images; i++) {
        const struct kiln_cc_variant_image *x = &a->images[i], *y = &b->images[i];
        if (x->arg != y->arg || x->order != y->order || x->data_type != y->data_type ||
            x->elem_size != y->elem_size || x->num_channels != y->num_channels)
            return false;
    }
    return true;
}

/*
 * The entry of the key in row `row`: its own, else a free one or the least launched of those
 * still counting, started afresh; NULL when every entry is built, failed or being built.
 * Under p->lock.
 */
static struct kiln_rt_variant *entry_for(struct kiln_rt_variant *row,
                                         const struct kiln_rt_variant_key *key)
{
    struct kiln_rt_variant *unused = NULL, *least = NULL;
    for (unsigned i = 0; i < KILN_RT_VARIANTS; i++) {
        struct kiln_rt_variant *v = &row[i];
        int state = atomic_load_explicit(&v->state, memory_order_relaxed);
        if (state == KILN_VARIANT_FREE) {
            if (!unused)
                unused = v;
            continue;
        }
        if (same_key(&v->key, key))
            return v;
        if (state == KILN_VARIANT_COUNTING && (!least || v->launches < least->launches))
            least = v;
    }
    struct kiln_rt_variant *v = unused ? unused : least;
    if (v) {
        v->key = *key;
        v->launches = 0;
        v->built = NULL;
        v->cc = NULL;
        atomic_store_explicit(&v->state, KILN_VARIANT_COUNTING, memory_order_relaxed);
    }
    return v;
}

/*
 * Without the lock: the kernel to launch when the pair's entry is settled (READY: its
 * variant; FAILED: the generic kernel), else NULL. A settled entry of a key without image
 * formats becomes k's last_variant, which the next launch of the same key finds first: it
 * never changes again and lives as long as the executable, which k keeps.
 */
static const struct kiln_cc_kernel *settled(cl_kernel k, const struct kiln_rt_variant_key *key)
{
    struct kiln_rt_variant *table =
        atomic_load_explicit(&k->program->variants, memory_order_acquire);
    if (!table || k->index >= k->program->variant_rows)
        return NULL;
    struct kiln_rt_variant *row = &table[(size_t)k->index * KILN_RT_VARIANTS];
    for (unsigned i = 0; i < KILN_RT_VARIANTS; i++) {
        int state = atomic_load_explicit(&row[i].state, memory_order_acquire);
        if ((state == KILN_VARIANT_READY || state == KILN_VARIANT_FAILED) &&
            same_key(&row[i].key, key)) {
            if (key->num_images == 0)
                atomic_store_explicit(&k->last_variant, &row[i], memory_order_release);
            return state == KILN_VARIANT_READY ? row[i].cc : k->cc;
        }
    }
    return NULL;
}

/* What the compiler builds for `key`: kernel `name` for its local size, offset and images. */
static struct kiln_cc_variant variant_want(const struct kiln_rt_variant_key *key, const char *name)
{
    struct kiln_cc_variant want = {name,
                                   {key->local[0], key->local[1], key->local[2]},
                                   key->zero_offset,
                                   key->num_images,
                                   {{0}}};
    memcpy(want.images, key->images, sizeof(want.images));
    return want;
}

/*
 * Builds the variant `v` of kernel `gen` (the generic kernel `index` of p's executable; v is
 * BUILDING, p->lock not held) from p's source and `options`; on success v->built and v->cc
 * are set. Returns whether it worked. `how` ends the log line: how the build ran.
 */
static bool build_variant(cl_program p, const struct kiln_cc_kernel *gen, const char *options,
                          struct kiln_rt_variant *v, const char *how)
{
    const struct kiln_cc_interface *cc = NULL;
    const char *name = gen->name;
    if (kiln_rt_compiler(&cc) != CL_SUCCESS)
        return false;
    const struct kiln_rt_variant_key *key = &v->key;
    struct kiln_cc_variant want = variant_want(key, name);
    /* The formats, for the log: " for images 0:RGBA/UNORM_INT8 ..." as cl.h numbers them. */
    char formats[KILN_CC_VARIANT_IMAGES * 24 + 16] = "";
    size_t used = 0;
    for (unsigned i = 0; i < key->num_images && used < sizeof(formats); i++)
        used +=
            (size_t)snprintf(formats + used, sizeof(formats) - used, "%s%u:%#x/%#x",
                             i ? " " : " for images ", (unsigned)key->images[i].arg,
                             (unsigned)key->images[i].order, (unsigned)key->images[i].data_type);
    struct kiln_cc_program *built = NULL;
    char *log = NULL;
    enum kiln_cc_status st = cc->build_variant(p->source, options, &want, &built, &log);
    const struct kiln_cc_kernel *info =
        st == KILN_CC_OK && cc->num_kernels(built) == 1 ? cc->kernel(built, 0) : NULL;
    /* The same source and options: only the work-group function and its scratch differ. */
    if (info && (strcmp(info->name, name) != 0 || info->num_args != gen->num_args ||
                 info->local_mem_static != gen->local_mem_static))
        info = NULL;
    if (info) {
        KILN_LOG(KILN_DBG_CC, "program %p: kernel %s: variant %zux%zux%zu%s%s %s%s", (void *)p,
                 name, key->local[0], key->local[1], key->local[2],
                 key->zero_offset ? " with a zero offset" : "", formats,
                 cc->from_cache(built) ? "loaded from the kernel cache" : "built", how);
        v->built = built;
        v->cc = info;
    } else {
        const char *why = log && *log ? log : "the build gave no kernel";
        KILN_LOG(KILN_DBG_CC, "program %p: kernel %s: no variant %zux%zux%zu%s%s: %.*s", (void *)p,
                 name, key->local[0], key->local[1], key->local[2],
                 key->zero_offset ? " with a zero offset" : "", formats, (int)strcspn(why, "\n"),
                 why);
        if (built)
            cc->destroy(built);
    }
    free(log);
    return info != NULL;
}

/* Publishes the outcome of v's build. Release: settled() reads built and cc after it sees
 * the state. */
static void build_settle(cl_program p, struct kiln_rt_variant *v, bool ok)
{
    pthread_mutex_lock(&p->lock);
    atomic_store_explicit(&v->state, ok ? KILN_VARIANT_READY : KILN_VARIANT_FAILED,
                          memory_order_release);
    pthread_mutex_unlock(&p->lock);
}

/*
 * The background builder: one thread, started by the first variant to build, builds the
 * queued variants in order. A job holds its program (not a kernel: an application that has
 * released every kernel may build the program again at once, and clBuildProgram first takes
 * the program's jobs back, kiln_rt_variant_jobs_cancel). At exit the builder finishes every
 * queued job before the process goes on (builder_stop): the compiler must not be torn down
 * under a build, and each variant then reaches the kernel cache for the next run, so a
 * process spends no more than it did when the launching thread built its variants itself.
 */
struct variant_job {
    struct variant_job *next;
    cl_program p;                     /* held */
    const struct kiln_cc_kernel *gen; /* the generic kernel, in p's executable */
    struct kiln_rt_variant *v;        /* BUILDING, in p's table */
    char *options;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake; /* a job queued, or the process exits */
    pthread_cond_t done; /* a job finished: `running` changed */
    struct variant_job *head, **tail;
    cl_program running; /* the program of the job being built, else NULL */
    bool started;       /* `thread` runs and is joined at exit */
    bool stopping;      /* no job is queued any more */
    bool hooked;        /* the exit and fork handlers are registered (a child inherits them) */
    pthread_t thread;
} builder = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .wake = PTHREAD_COND_INITIALIZER,
    .done = PTHREAD_COND_INITIALIZER,
    .tail = &builder.head,
};

static void builder_stop(void);

static void *builder_main(void *arg)
{
    (void)arg;
    (void)pthread_setname_np(pthread_self(), "kiln-variants");
    /* The lowest priority: a variant is worth building with time the workers leave, not
     * with theirs (Linux gives each thread its own nice value). */
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
    /*
     * builder_queue registered builder_stop after opening the compiler's back end; what the
     * compiler sets up on first use registers its destructors later, so builder_stop is
     * registered again after the first build (exit handlers run last registered first; a second
     * call does nothing).
     */
    bool first = true;
    pthread_mutex_lock(&builder.lock);
    for (;;) {
        struct variant_job *job = builder.head;
        if (!job) {
            if (builder.stopping)
                break;
            pthread_cond_wait(&builder.wake, &builder.lock);
            continue;
        }
        builder.head = job->next;
        if (!builder.head)
            builder.tail = &builder.head;
        builder.running = job->p;
        pthread_mutex_unlock(&builder.lock);

        bool ok = build_variant(job->p, job->gen, job->options, job->v, " in the background");
        build_settle(job->p, job->v, ok);
        if (first)
            (void)atexit(builder_stop);
        first = false;
        pthread_mutex_lock(&builder.lock);
        builder.running = NULL;
        pthread_cond_broadcast(&builder.done);
        pthread_mutex_unlock(&builder.lock);
        kiln_rt_obj_drop(&job->p->obj);
        free(job->options);
        free(job);
        pthread_mutex_lock(&builder.lock);
    }
    pthread_mutex_unlock(&builder.lock);
    return NULL;
}

static void builder_stop(void)
{
    pthread_mutex_lock(&builder.lock);
    bool started = builder.started;
    builder.started = false;
    builder.stopping = true;
    pthread_cond_signal(&builder.wake);
    pthread_mutex_unlock(&builder.lock);
    if (started)
        pthread_join(builder.thread, NULL);
}

/* A child of fork() has no builder thread: its queued jobs are dropped (their entries stay
 * BUILDING, so the child launches those keys with the generic function) and it starts a
 * builder of its own when it needs one. */
static void builder_forked(void)
{
    pthread_mutex_init(&builder.lock, NULL);
    pthread_cond_init(&builder.wake, NULL);
    pthread_cond_init(&builder.done, NULL);
    builder.head = NULL;
    builder.tail = &builder.head;
    builder.running = NULL;
    builder.started = false;
}

/* Queues the build of v (BUILDING; the caller owns `options`). Returns false, leaving the build
 * to the caller, when the builder cannot take it. */
static bool builder_queue(cl_program p, const struct kiln_cc_kernel *gen, struct kiln_rt_variant *v,
                          char *options)
{
    struct variant_job *job = kiln_malloc(sizeof(*job));
    if (!job)
        return false;
    *job = (struct variant_job){NULL, p, gen, v, options};
    /*
     * Exit handlers run last registered first, and builder_stop must run before the compiler's
     * exit-time destructors, which LLVM and Clang register when they first use what they
     * destroy. So where the builder will compile, the back end is primed here, before
     * builder_stop is registered: opened, and, unless an optimised build has run every stage in
     * this process (its programs came from the kernel cache, say), a small program built
     * through every stage. Left to the builder's first build, those destructors would be
     * registered after builder_stop, run first at exit and free what that build still uses
     * (api/variant-exit). A variant the kernel cache holds is only loaded, which needs neither
     * LLVM nor Clang, and costs this thread only the cache lookup. Priming is a one-time cost
     * (docs/compiler.md), then a pthread_once.
     */
    const struct kiln_cc_interface *cc = NULL;
    if (kiln_rt_compiler(&cc) == CL_SUCCESS) {
        struct kiln_cc_variant want = variant_want(&v->key, gen->name);
        if (!cc->cached(p->source, options, &want))
            (void)cc->prime_backend();
    }
    pthread_mutex_lock(&builder.lock);
    if (!builder.hooked && atexit(builder_stop) == 0 &&
        pthread_atfork(NULL, NULL, builder_forked) == 0)
        builder.hooked = true;
    if (builder.hooked && !builder.started && !builder.stopping &&
        pthread_create(&builder.thread, NULL, builder_main, NULL) == 0)
        builder.started = true;
    bool queued = builder.started && !builder.stopping;
    if (queued) {
        kiln_rt_obj_hold(&p->obj);
        *builder.tail = job;
        builder.tail = &job->next;
        pthread_cond_signal(&builder.wake);
    }
    pthread_mutex_unlock(&builder.lock);
    if (!queued)
        free(job);
    return queued;
}

void kiln_rt_variant_jobs_cancel(cl_program p)
{
    struct variant_job *taken = NULL;
    pthread_mutex_lock(&builder.lock);
    for (struct variant_job **at = &builder.head; *at;) {
        struct variant_job *job = *at;
        if (job->p != p) {
            at = &job->next;
            continue;
        }
        *at = job->next;
        job->next = taken;
        taken = job;
    }
    builder.tail = &builder.head;
    while (*builder.tail)
        builder.tail = &(*builder.tail)->next;
    while (builder.running == p)
        pthread_cond_wait(&builder.done, &builder.lock);
    pthread_mutex_unlock(&builder.lock);
    /* Their entries stay BUILDING: the table goes with the executable being replaced. */
    while (taken) {
        struct variant_job *next = taken->next;
        kiln_rt_obj_drop(&taken->p->obj);
        free(taken->options);
        free(taken);
        taken = next;
    }
}

/*
 * The formats of k's image arguments as they are set now, into key (none when the kernel has
 * more image arguments than a variant can be built for). Under k->lock, as clSetKernelArg
 * writes them under it.
 */
static void read_formats(cl_kernel k, struct kiln_rt_variant_key *key)
{
    unsigned n = k->num_image_args;
    key->num_images = 0;
    memset(key->images, 0, sizeof(key->images));
    if (n == 0 || n > KILN_CC_VARIANT_IMAGES)
        return;
    for (unsigned i = 0; i < k->cc->num_args; i++) {
        cl_mem mem = k->args[i].mem;
        if (k->cc->args[i].kind != KILN_CC_ARG_IMAGE || !mem || !mem->image)
            continue;
        const struct kiln_image *im = mem->image;
        key->images[key->num_images++] = (struct kiln_cc_variant_image){
            i, im->order, im->data_type, im->elem_size, im->num_channels};
    }
}

bool kiln_rt_variant_images_match(cl_kernel k, const struct kiln_rt_variant_key *key)
{
    struct kiln_rt_variant_key now = *key;
    read_formats(k, &now);
    return same_key(&now, key);
}

const struct kiln_cc_kernel *kiln_rt_variant_for(cl_kernel k, cl_uint dim, const size_t *offset,
                                                 const size_t *global, const size_t *local,
                                                 struct kiln_rt_variant_key *used)
{
    cl_program p = k->program;
    pthread_once(&threshold_once, read_threshold);
    /* A program that enqueues kernels from kernels has no variants (the compiler refuses
     * them: a variant's kernel table would hold one kernel); not even asking saves loading
     * the compiler's back end for nothing. */
    if (threshold == 0 || !p->source || p->from_binary || k->cc->enqueues)
        return k->cc;
    size_t sizes[3] = {1, 1, 1};
    bool zero_offset = true;
    for (cl_uint d = 0; d < dim; d++) {
        if (global[d] % local[d] != 0)
            return k->cc; /* a partial group: the generic function */
        sizes[d] = local[d];
        zero_offset &= !offset || offset[d] == 0;
    }
    /* Only a kernel with image arguments reads them, under the lock clSetKernelArg takes. */
    bool images = k->num_image_args > 0;
    /* The common case costs two comparisons: the kernel object's last launch of this size
     * settled already (see settled()). */
    const struct kiln_rt_variant *last =
        images ? NULL : atomic_load_explicit(&k->last_variant, memory_order_acquire);
    if (last && last->key.zero_offset == zero_offset &&
        memcmp(last->key.local, sizes, sizeof(sizes)) == 0)
        return atomic_load_explicit(&last->state, memory_order_relaxed) == KILN_VARIANT_READY
                   ? last->cc
                   : k->cc;
    struct kiln_rt_variant_key key = {{sizes[0], sizes[1], sizes[2]}, zero_offset, 0, {{0}}};
    if (images) {
        pthread_mutex_lock(&k->lock);
        read_formats(k, &key);
        pthread_mutex_unlock(&k->lock);
        *used = key;
    }
    const struct kiln_cc_kernel *known = settled(k, &key);
    if (known)
        return known;
    const struct kiln_cc_interface *cc = NULL;
    if (kiln_rt_compiler(&cc) != CL_SUCCESS)
        return k->cc;

    const struct kiln_cc_kernel *use = k->cc;
    char *options = NULL;
    pthread_mutex_lock(&p->lock);
    struct kiln_rt_variant *table = atomic_load_explicit(&p->variants, memory_order_relaxed);
    if (!table) {
        unsigned rows = cc->num_kernels(p->built);
        table = kiln_calloc((size_t)rows * KILN_RT_VARIANTS, sizeof(*table));
        if (table) {
            p->variant_rows = rows;
            atomic_store_explicit(&p->variants, table, memory_order_release);
        }
    }
    struct kiln_rt_variant *v = table && k->index < p->variant_rows
                                    ? entry_for(&table[(size_t)k->index * KILN_RT_VARIANTS], &key)
                                    : NULL;
    int state = v ? atomic_load_explicit(&v->state, memory_order_relaxed) : KILN_VARIANT_FREE;
    /* A required size in a program of full groups is a constant already: with an offset and
     * no image formats a variant would add nothing, so the key is settled on the generic
     * function at once. */
    if (state == KILN_VARIANT_COUNTING && k->cc->reqd_work_group_size[0] && !key.zero_offset &&
        key.num_images == 0 && kiln_rt_program_uniform(p)) {
        state = KILN_VARIANT_FAILED;
        atomic_store_explicit(&v->state, state, memory_order_release);
    }
    if (state == KILN_VARIANT_READY)
        use = v->cc;
    if (state == KILN_VARIANT_COUNTING && ++v->launches >= threshold) {
        options = kiln_strdup(p->options ? p->options : "");
        if (options)
            atomic_store_explicit(&v->state, KILN_VARIANT_BUILDING, memory_order_relaxed);
    }
    pthread_mutex_unlock(&p->lock);
    if (!options)
        return use;
    if (!sync_builds && builder_queue(p, k->cc, v, options))
        return use; /* this launch runs the generic function */

    bool ok = build_variant(p, k->cc, options, v, "");
    free(options);
    build_settle(p, v, ok);
    return ok ? v->cc : k->cc;
}
