/*
 * The pipe ring: a lock-free multi-producer, multi-consumer ring of fixed-size
 * packets with reservations (DESIGN.md §6). This one header is the whole ring.
 * It is written in the common subset of C11 and OpenCL C 3.0 (the atomics go
 * through macros), so the kernel library's pipe built-ins
 * (kernel-lib/pipes/pipes.cl) and the runtime (which lays a pipe out with it)
 * share the code, and plain C threads stress-test exactly what kernels run
 * (tests/unit/pipe_ring.c, also under ThreadSanitizer).
 *
 * Layout. A pipe is one allocation: struct kiln_pipe (a multiple of 128 bytes),
 * the write side's entry table and the read side's (`slots` 64-bit entries
 * each), then `slots` packets of packet_size bytes, 128-byte aligned. `slots` is
 * max_packets rounded up to a power of two: ring index i lives in slot
 * i & (slots - 1); at most max_packets slots are ever in use. After the packets,
 * each side has a spill area (kiln_pipe_spill) where a work-group's one-packet
 * calls (kernel-lib/pipes/pipes.cl) move a reservation that wraps round the ring,
 * so that the group's work-items always access consecutive packets. At most one
 * reservation of a side wraps at a time: the ring cannot move a whole lap while it
 * is outstanding.
 *
 * Who. Any number of writers (work-items, work-groups, host threads) and any
 * number of readers, concurrently. Capacity: max_packets packets.
 *
 * Indices. Each side (write, read) has two 64-bit packet indices that only grow:
 *   reserve - where this side's next reservation starts; every member of the
 *             side advances it with a compare-and-swap;
 *   commit  - the published end: every packet before it has been committed and
 *             is handed to the other side; whoever commits advances it with a
 *             compare-and-swap.
 * read.commit <= read.reserve <= write.commit <= write.reserve <=
 * read.commit + max_packets:
 *   [read.commit, read.reserve)   being read by reserved readers;
 *   [read.reserve, write.commit)  published, not yet reserved: what readers may take;
 *   [write.commit, write.reserve) being written by reserved writers;
 *   the rest of the ring is free for writers.
 *
 * Entries. A reservation starting at index i owns entry i & (slots - 1) of its
 * side's table: a 64-bit word packing the low 31 bits of i as a tag (bits
 * 32-62), a done bit (63), a "counted" bit (30) and its packet count (0-29).
 * The entry is used again only by a reservation starting at i + k * slots, which
 * needs the ring to have moved a whole lap past i, so i has been published by
 * then. Tags repeat every 2^31 packets, so an entry could be mistaken only by
 * a thread stalled that long inside one call, or by a publisher that reads a
 * done entry left 2^31 packets earlier at a slot where no reservation started
 * since, in the few instructions between a new reservation's compare-and-swap
 * and its entry store; a full 64-bit tag would double the entry tables.
 *
 * Active reservations. The reserve_* built-ins count their reservations in the
 * side's `active` (fetch-add on reserve, fetch-sub on commit, relaxed: it is a
 * bound, not an ordering) and refuse one (KILN_PIPE_NULL_ID) while
 * KILN_PIPE_MAX_RESERVATIONS are live; that is CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS.
 * The one-packet read_pipe/write_pipe reserve and commit in one call and are not
 * counted. A reservation committed but not yet published (waiting for an older
 * one) is no longer active, so a stalled reservation holder never makes the
 * others' reservations fail; only the capacity limits how far they get.
 *
 * reserve(n): load the other side's commit (acquire, A), then this side's
 * reserve; a writer needs n free packets, a reader n published unreserved ones;
 * then a compare-and-swap moves reserve past the n packets, and the entry gets
 * (tag, not done, n). A reservation fails only when a second look finds both
 * words unchanged: then they held those values at one instant and the pipe was
 * that full (empty); a view stale in between is retried. The id handed out packs
 * n (bits 33-62) and the low 33 bits of the first index (0-32), so bit 63 is 0
 * and the all-ones CLK_NULL_RESERVE_ID is never an id. A packet access with an
 * id needs no memory but the packet's (so a work-group's accesses vectorise):
 * the index is checked against the id's count, and any id decodes to slots
 * inside the pipe, so a forged, stale or committed id can give wrong packets but
 * never a wild access. Commit checks the id against its entry.
 *
 * commit(id): store the entry's done bit (seq_cst, B), then publish: load
 * commit (seq_cst, C); while the entry of the index at commit is done and
 * carries its tag, compare-and-swap commit past its packets (seq_cst, D). So a
 * commit never waits for anyone; reservations become visible in reservation
 * order, each as one contiguous run, whatever the order of their commits; and a
 * reservation committed out of order is published by the commit that closes the
 * gap.
 *
 * Pairs:
 *   B (release) -> D's load of the entry (acquire): the packet stores (write
 *     side) or loads (read side) of a reservation happen before its publication;
 *   D (release; later CASes on commit are read-modify-writes, so they continue
 *     the release sequence) -> A on the other side (acquire): a reader sees the
 *     packets of every index below write.commit, and a writer reuses a slot only
 *     after the reader that freed it is done with it;
 *   B and C are a store-then-load on different words, facing D then an entry
 *     load in the committer that advances commit: seq_cst makes at least one of
 *     the two see the other, so no done reservation is left unpublished.
 * The entry store after reserve's CAS is relaxed: only its own commit (the same
 * work-item or work-group, later in program order) and publishers that check its
 * tag read it, and D's CAS fails for anyone who read a stale entry.
 *
 * Size queries. num_packets is write.commit - read.commit: packets published
 * and not yet consumed (the answer is stale as soon as it is read, as the
 * specification says).
 *
 * A reservation never committed stops its side at that reservation for good:
 * later ones are published only after it (the specification makes an
 * uncommitted reservation undefined). An id committed twice, or one whose entry
 * was reused, is ignored.
 */
#ifndef KILN_INCLUDE_KILN_PIPE_H
#define KILN_INCLUDE_KILN_PIPE_H

/*
 * The atomics: Clang's __opencl_atomic_* in OpenCL C (device scope: every worker
 * thread runs the same device), <stdatomic.h> in C. The memory orders are the
 * __ATOMIC_* constants both compilers define.
 */
#if defined(__OPENCL_C_VERSION__)
typedef ulong kiln_pipe_u64;
typedef uint kiln_pipe_u32;
typedef atomic_ulong kiln_pipe_atomic;
#define KILN_PIPE_GLOBAL __global
#define KILN_PIPE_LOAD(obj, order)                                                                 \
    __opencl_atomic_load((obj), (order), __OPENCL_MEMORY_SCOPE_DEVICE)
#define KILN_PIPE_STORE(obj, v, order)                                                             \
    __opencl_atomic_store((obj), (v), (order), __OPENCL_MEMORY_SCOPE_DEVICE)
#define KILN_PIPE_ADD(obj, v, order)                                                               \
    __opencl_atomic_fetch_add((obj), (v), (order), __OPENCL_MEMORY_SCOPE_DEVICE)
#define KILN_PIPE_CAS_WEAK(obj, expected, v, ok, fail)                                             \
    __opencl_atomic_compare_exchange_weak((obj), (expected), (v), (ok), (fail),                    \
                                          __OPENCL_MEMORY_SCOPE_DEVICE)
#define KILN_PIPE_CAS(obj, expected, v, ok, fail)                                                  \
    __opencl_atomic_compare_exchange_strong((obj), (expected), (v), (ok), (fail),                  \
                                            __OPENCL_MEMORY_SCOPE_DEVICE)
#else
#include <stdatomic.h>
#include <stdint.h>
typedef uint64_t kiln_pipe_u64;
typedef uint32_t kiln_pipe_u32;
typedef _Atomic uint64_t kiln_pipe_atomic;
#define KILN_PIPE_GLOBAL
#define KILN_PIPE_LOAD(obj, order)     atomic_load_explicit((obj), (order))
#define KILN_PIPE_STORE(obj, v, order) atomic_store_explicit((obj), (v), (order))
#define KILN_PIPE_ADD(obj, v, order)   atomic_fetch_add_explicit((obj), (v), (order))
#define KILN_PIPE_CAS_WEAK(obj, expected, v, ok, fail)                                             \
    atomic_compare_exchange_weak_explicit((obj), (expected), (v), (ok), (fail))
#define KILN_PIPE_CAS(obj, expected, v, ok, fail)                                                  \
    atomic_compare_exchange_strong_explicit((obj), (expected), (v), (ok), (fail))
#endif

/*
 * A field set once when the pipe is made (packet_size, max_packets, mask). Kernels read
 * these through a __constant pointer: the compiler marks __constant loads invariant, so
 * a work-item loop loads them once even though its packet stores might alias them.
 */
#if defined(__OPENCL_C_VERSION__)
#define KILN_PIPE_FIXED(p, field) (((__constant struct kiln_pipe *)(ulong)(p))->field)
#else
#define KILN_PIPE_FIXED(p, field) ((p)->field)
#endif

/* Live reserve_* reservations per side (CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS). */
#define KILN_PIPE_MAX_RESERVATIONS 65536u
/* The largest packet (CL_DEVICE_PIPE_MAX_PACKET_SIZE). */
#define KILN_PIPE_MAX_PACKET_SIZE 1024u
/* The most packets a pipe may hold: a count fits the entry's 30 bits. */
#define KILN_PIPE_MAX_PACKETS (1u << 29)
/* What reserve answers when it fails: CLK_NULL_RESERVE_ID's bits. */
#define KILN_PIPE_NULL_ID (~(kiln_pipe_u64)0)

#define KILN_PIPE_WRITE 0
#define KILN_PIPE_READ  1

#define KILN_PIPE_DONE    ((kiln_pipe_u64)1 << 63)
#define KILN_PIPE_TAG     ((kiln_pipe_u64)0x7fffffff << 32)
#define KILN_PIPE_COUNTED ((kiln_pipe_u64)1 << 30)
#define KILN_PIPE_COUNT   ((kiln_pipe_u64)(1u << 30) - 1)

/* One side: each word on its own cache line. */
struct kiln_pipe_side {
    kiln_pipe_atomic reserve; /* atomic; advanced by this side's reservers */
    kiln_pipe_u64 pad0[15];
    kiln_pipe_atomic commit; /* atomic; advanced by this side's committers */
    kiln_pipe_u64 pad1[15];
    kiln_pipe_atomic active; /* atomic; live reserve_* reservations */
    kiln_pipe_u64 pad2[15];
};

struct kiln_pipe {
    kiln_pipe_u32 packet_size; /* bytes, as given to clCreatePipe; constant */
    kiln_pipe_u32 max_packets; /* capacity; constant */
    kiln_pipe_u32 mask;        /* slots - 1; constant */
    kiln_pipe_u32 reserved;
    kiln_pipe_u64 pad[14];
    struct kiln_pipe_side side[2]; /* KILN_PIPE_WRITE, KILN_PIPE_READ */
};

/* The number of packet slots for a capacity (a power of two). */
static inline kiln_pipe_u32 kiln_pipe_slots(kiln_pipe_u32 max_packets)
{
    kiln_pipe_u32 s = 1;
    while (s < max_packets)
        s <<= 1;
    return s;
}

/* Bytes before the packets: the header and both entry tables, 128-byte aligned. */
static inline kiln_pipe_u64 kiln_pipe_data_offset(kiln_pipe_u32 slots)
{
    kiln_pipe_u64 end = sizeof(struct kiln_pipe) + 2 * (kiln_pipe_u64)slots * 8;
    return (end + 127) / 128 * 128;
}

/* The largest spill area, per side. */
#define KILN_PIPE_SPILL_MAX 65536u

static inline kiln_pipe_u64 kiln_pipe_round128(kiln_pipe_u64 bytes)
{
    return (bytes + 127) / 128 * 128;
}

/* Bytes of one side's spill area: the ring's size, at most KILN_PIPE_SPILL_MAX. */
static inline kiln_pipe_u64 kiln_pipe_spill_bytes(kiln_pipe_u32 slots, kiln_pipe_u32 packet_size)
{
    kiln_pipe_u64 ring = (kiln_pipe_u64)slots * packet_size;
    return ring < KILN_PIPE_SPILL_MAX ? ring : KILN_PIPE_SPILL_MAX;
}

/* Bytes of a whole pipe: header, tables, packets, and the two spill areas. */
static inline kiln_pipe_u64 kiln_pipe_bytes(kiln_pipe_u32 packet_size, kiln_pipe_u32 max_packets)
{
    kiln_pipe_u32 slots = kiln_pipe_slots(max_packets);
    return kiln_pipe_data_offset(slots) + kiln_pipe_round128((kiln_pipe_u64)slots * packet_size) +
           2 * kiln_pipe_round128(kiln_pipe_spill_bytes(slots, packet_size));
}

static inline KILN_PIPE_GLOBAL kiln_pipe_atomic *
kiln_pipe_table(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side)
{
    return (KILN_PIPE_GLOBAL kiln_pipe_atomic *)((KILN_PIPE_GLOBAL unsigned char *)p +
                                                 sizeof(struct kiln_pipe)) +
           (kiln_pipe_u64)side * (KILN_PIPE_FIXED(p, mask) + 1);
}

/* The packet storage. */
static inline KILN_PIPE_GLOBAL unsigned char *kiln_pipe_data(KILN_PIPE_GLOBAL struct kiln_pipe *p)
{
    return (KILN_PIPE_GLOBAL unsigned char *)p +
           kiln_pipe_data_offset(KILN_PIPE_FIXED(p, mask) + 1);
}

/* The spill area of `side` (KILN_PIPE_WRITE or KILN_PIPE_READ). */
static inline KILN_PIPE_GLOBAL unsigned char *kiln_pipe_spill(KILN_PIPE_GLOBAL struct kiln_pipe *p,
                                                              int side)
{
    kiln_pipe_u32 slots = KILN_PIPE_FIXED(p, mask) + 1, size = KILN_PIPE_FIXED(p, packet_size);
    return kiln_pipe_data(p) + kiln_pipe_round128((kiln_pipe_u64)slots * size) +
           (kiln_pipe_u64)side * kiln_pipe_round128(kiln_pipe_spill_bytes(slots, size));
}

static inline int kiln_pipe_id_valid(kiln_pipe_u64 id)
{
    return (id >> 63) == 0;
}

#define KILN_PIPE_ID_START ((((kiln_pipe_u64)1) << 33) - 1)

/* The id of a reservation of n packets from index `start`. */
static inline kiln_pipe_u64 kiln_pipe_id(kiln_pipe_u64 start, kiln_pipe_u32 n)
{
    return ((kiln_pipe_u64)n << 33) | (start & KILN_PIPE_ID_START);
}

/* An id's packet count (0 for the null id's lanes: callers check validity first). */
static inline kiln_pipe_u64 kiln_pipe_id_count(kiln_pipe_u64 id)
{
    return (id >> 33) & KILN_PIPE_COUNT;
}

/* An entry's tag for a reservation starting at index i. */
static inline kiln_pipe_u64 kiln_pipe_tag(kiln_pipe_u64 i)
{
    return (i << 32) & KILN_PIPE_TAG;
}

/*
 * Reserves n packets on `side`; `counted` for the reserve_* built-ins (bounded by
 * KILN_PIPE_MAX_RESERVATIONS). Returns the reservation id, or KILN_PIPE_NULL_ID
 * when n is 0 or above the capacity, when there are not n free packets (write)
 * or n published unreserved packets (read), or when too many are active.
 */
static inline kiln_pipe_u64 kiln_pipe_reserve(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side,
                                              kiln_pipe_u32 n, int counted)
{
    KILN_PIPE_GLOBAL struct kiln_pipe_side *s = &p->side[side];
    KILN_PIPE_GLOBAL struct kiln_pipe_side *o = &p->side[side ^ 1];
    if (n == 0 || n > KILN_PIPE_FIXED(p, max_packets))
        return KILN_PIPE_NULL_ID;
    if (counted && KILN_PIPE_ADD(&s->active, 1, __ATOMIC_RELAXED) >= KILN_PIPE_MAX_RESERVATIONS) {
        KILN_PIPE_ADD(&s->active, (kiln_pipe_u64)-1, __ATOMIC_RELAXED);
        return KILN_PIPE_NULL_ID;
    }
    for (;;) {
        /* A: acquire, pairs with D on the other side. Loaded before our reserve,
         * so that for a writer the read side's commit never passes our index. */
        kiln_pipe_u64 other = KILN_PIPE_LOAD(&o->commit, __ATOMIC_ACQUIRE);
        kiln_pipe_u64 cur = KILN_PIPE_LOAD(&s->reserve, __ATOMIC_RELAXED);
        /* Writers: packets in the ring (0 to max_packets); readers: published
         * unreserved packets (0 or more). Outside that range one load is stale
         * next to the other (a thread paused between them while the ring moved
         * on): load both again. */
        kiln_pipe_u64 room;
        if (side == KILN_PIPE_WRITE) {
            if (cur < other || cur - other > KILN_PIPE_FIXED(p, max_packets))
                continue;
            room = KILN_PIPE_FIXED(p, max_packets) - (cur - other);
        } else {
            if (other < cur)
                continue;
            room = other - cur;
        }
        if (n > room) {
            /* Fail only on a snapshot: when neither word moved while they were
             * read, they held those values together and the pipe was that full
             * (empty). Otherwise look again. */
            if (KILN_PIPE_LOAD(&o->commit, __ATOMIC_ACQUIRE) != other ||
                KILN_PIPE_LOAD(&s->reserve, __ATOMIC_RELAXED) != cur)
                continue;
            if (counted)
                KILN_PIPE_ADD(&s->active, (kiln_pipe_u64)-1, __ATOMIC_RELAXED);
            return KILN_PIPE_NULL_ID;
        }
        if (KILN_PIPE_CAS_WEAK(&s->reserve, &cur, cur + n, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
            KILN_PIPE_STORE(&kiln_pipe_table(p, side)[cur & KILN_PIPE_FIXED(p, mask)],
                            kiln_pipe_tag(cur) | (counted ? KILN_PIPE_COUNTED : 0) | n,
                            __ATOMIC_RELAXED);
            return kiln_pipe_id(cur, n);
        }
    }
}

/* The live (reserved, not yet committed) entry of `id`, or 0 if it has none. */
static inline kiln_pipe_u64 kiln_pipe_entry(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side,
                                            kiln_pipe_u64 id)
{
    if (!kiln_pipe_id_valid(id))
        return 0;
    kiln_pipe_u64 e =
        KILN_PIPE_LOAD(&kiln_pipe_table(p, side)[id & KILN_PIPE_FIXED(p, mask)], __ATOMIC_RELAXED);
    if ((e & KILN_PIPE_DONE) || (e & KILN_PIPE_TAG) != kiln_pipe_tag(id) ||
        (e & KILN_PIPE_COUNT) != kiln_pipe_id_count(id))
        return 0;
    return e;
}

/*
 * The packet `i` of reservation `id`, or a null pointer when the id is the null
 * id or i is not below its count. Reads nothing but p's constant header.
 */
static inline KILN_PIPE_GLOBAL unsigned char *kiln_pipe_packet(KILN_PIPE_GLOBAL struct kiln_pipe *p,
                                                               kiln_pipe_u64 id, kiln_pipe_u32 i)
{
    if (!kiln_pipe_id_valid(id) || i >= kiln_pipe_id_count(id))
        return (KILN_PIPE_GLOBAL unsigned char *)0;
    return kiln_pipe_data(p) +
           ((id + i) & KILN_PIPE_FIXED(p, mask)) * KILN_PIPE_FIXED(p, packet_size);
}

/* Advances `side`'s commit over every consecutive done reservation. */
static inline void kiln_pipe_publish(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side)
{
    KILN_PIPE_GLOBAL struct kiln_pipe_side *s = &p->side[side];
    KILN_PIPE_GLOBAL kiln_pipe_atomic *table = kiln_pipe_table(p, side);
    /* C: seq_cst, against B of a committer whose reservation is next. */
    kiln_pipe_u64 c = KILN_PIPE_LOAD(&s->commit, __ATOMIC_SEQ_CST);
    for (;;) {
        /* Acquire (seq_cst), pairs with B. */
        kiln_pipe_u64 e = KILN_PIPE_LOAD(&table[c & KILN_PIPE_FIXED(p, mask)], __ATOMIC_SEQ_CST);
        if (!(e & KILN_PIPE_DONE) || (e & KILN_PIPE_TAG) != kiln_pipe_tag(c))
            return;
        kiln_pipe_u64 next = c + (e & KILN_PIPE_COUNT);
        /* D: release, pairs with A on the other side; on failure c is the newer value. */
        if (KILN_PIPE_CAS(&s->commit, &c, next, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            c = next;
    }
}

/* Commits reservation `id` of `side`; an id that is not live is ignored. */
static inline void kiln_pipe_commit(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side,
                                    kiln_pipe_u64 id)
{
    kiln_pipe_u64 e = kiln_pipe_entry(p, side, id);
    if (!e)
        return;
    if (e & KILN_PIPE_COUNTED)
        KILN_PIPE_ADD(&p->side[side].active, (kiln_pipe_u64)-1, __ATOMIC_RELAXED);
    /* B: release (seq_cst), pairs with the entry load in publish. */
    KILN_PIPE_STORE(&kiln_pipe_table(p, side)[id & KILN_PIPE_FIXED(p, mask)], e | KILN_PIPE_DONE,
                    __ATOMIC_SEQ_CST);
    kiln_pipe_publish(p, side);
}

/* Packets published and not yet consumed, at most max_packets. */
static inline kiln_pipe_u32 kiln_pipe_num_packets(KILN_PIPE_GLOBAL struct kiln_pipe *p)
{
    kiln_pipe_u64 r = KILN_PIPE_LOAD(&p->side[KILN_PIPE_READ].commit, __ATOMIC_ACQUIRE);
    kiln_pipe_u64 w = KILN_PIPE_LOAD(&p->side[KILN_PIPE_WRITE].commit, __ATOMIC_ACQUIRE);
    if (w < r)
        return 0; /* loads far apart: the read side moved on meanwhile */
    return w - r < KILN_PIPE_FIXED(p, max_packets) ? (kiln_pipe_u32)(w - r)
                                                   : KILN_PIPE_FIXED(p, max_packets);
}

#if !defined(__OPENCL_C_VERSION__)
/*
 * Makes `p` an empty pipe (the caller allocated kiln_pipe_bytes(packet_size,
 * max_packets) bytes, 128-byte aligned). Not for concurrent use.
 */
static inline void kiln_pipe_init(KILN_PIPE_GLOBAL struct kiln_pipe *p, kiln_pipe_u32 packet_size,
                                  kiln_pipe_u32 max_packets)
{
    kiln_pipe_u32 slots = kiln_pipe_slots(max_packets);
    p->packet_size = packet_size;
    p->max_packets = max_packets;
    p->mask = slots - 1;
    p->reserved = 0;
    for (int side = 0; side < 2; side++) {
        atomic_init(&p->side[side].reserve, 0);
        atomic_init(&p->side[side].commit, 0);
        atomic_init(&p->side[side].active, 0);
        /* Entry k holds the tag of index k - slots, done: never live, and never
         * publishable before the ring's first lap ends. */
        for (kiln_pipe_u32 k = 0; k < slots; k++)
            atomic_init(&kiln_pipe_table(p, side)[k],
                        KILN_PIPE_DONE | kiln_pipe_tag((kiln_pipe_u64)k - slots));
    }
}
#endif

#endif
