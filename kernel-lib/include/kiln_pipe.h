/*
 * The pipe ring: a lock-free multi-producer, multi-consumer ring of fixed-size
 * packets with reservations (DESIGN.md §6). This one header is the whole ring.
 * It is written in the common subset of C11 and OpenCL C 3.0, so the kernel
 * library's pipe builtins (kernel-lib/pipes/pipes.cl) and the runtime (which
 * lays a pipe out with it) share the code, and plain C threads stress-test
 * exactly what kernels run (tests/unit/pipe_ring.c, also under ThreadSanitizer).
 *
 * Layout. A pipe is one allocation: struct kiln_pipe (a multiple of 128 bytes),
 * then `slots` packets of packet_size bytes. `slots` is max_packets rounded up
 * to a power of two, so the packet of ring index i is slot i & (slots - 1) even
 * when the 32-bit indices wrap; at most max_packets of them are ever in use.
 *
 * Who. Any number of writers (work-items, work-groups, host threads) and any
 * number of readers, concurrently. Capacity: max_packets packets.
 *
 * Indices. Each side (write, read) has two 64-bit words, each packing a
 * reservation sequence number (bits 32-62, wrapping at 2^31) and a packet index
 * (bits 0-31, wrapping at 2^32):
 *   reserve - the next reservation of this side: its number and first packet.
 *             Every member of the side advances it with a compare-and-swap.
 *   commit  - the published end: every reservation before this number has been
 *             committed and every packet before this index handed to the other
 *             side. Whoever commits advances it with a compare-and-swap.
 * In packets, read.commit <= read.reserve <= write.commit <= write.reserve <=
 * read.commit + max_packets (modulo 2^32):
 *   [read.commit, read.reserve)   being read by reserved readers;
 *   [read.reserve, write.commit)  published, not yet reserved: what readers may take;
 *   [write.commit, write.reserve) being written by reserved writers;
 *   the rest of the ring is free for writers.
 *
 * Reservations. A side's reservation table has KILN_PIPE_MAX_RESERVATIONS
 * entries; reservation q uses entry q % KILN_PIPE_MAX_RESERVATIONS, a 64-bit word
 * packing its number (bits 32-62), a done bit (63) and its packet count (0-31).
 * A reservation is refused (KILN_PIPE_NULL_ID) when the side's table is full,
 * i.e. q - commit's number >= KILN_PIPE_MAX_RESERVATIONS: so an entry is reused
 * only once its reservation has been published. That bound is what the device
 * reports as CL_DEVICE_PIPE_MAX_ACTIVE_RESERVATIONS.
 *
 * reserve(n): load the other side's commit (acquire, A), then this side's
 * reserve; a writer needs n free packets, a reader n published unreserved
 * ones; then a compare-and-swap moves reserve past n packets and one number,
 * and the table entry gets (q, not done, n). The id handed out packs q and the
 * first index: bit 63 is always 0, so the all-ones CLK_NULL_RESERVE_ID never is
 * one, and any id decodes to an entry and slots inside the pipe, so a forged or
 * stale id can give wrong packets but never a wild access.
 *
 * commit(id): store the entry's done bit (seq_cst, B), then publish: load
 * commit (seq_cst, C); while the entry of commit's number is done and carries
 * that number, compare-and-swap commit past it (seq_cst, D). So a commit never
 * waits for anyone; reservations become visible in reservation order, each as
 * one contiguous run, whatever the order of their commits; and a reservation
 * committed out of order is published by the commit that closes the gap.
 *
 * Pairs:
 *   B (release) -> D's load of the entry (acquire): the packet stores (write
 *     side) or loads (read side) of a reservation happen before its publication;
 *   D (release; later CASes on commit are read-modify-writes, so they continue
 *     the release sequence) -> A on the other side (acquire): a reader sees the
 *     packets of every index below write.commit, and a writer reuses a slot only
 *     after the reader that freed it is done with it;
 *   B and C are a store-then-load on different words facing D then an entry load
 *     in the committer that advances commit: seq_cst makes at least one of the
 *     two see the other, so no done reservation is left unpublished.
 * The table entry store after reserve's CAS is relaxed: only its own commit (the
 * same work-item or work-group, later in program order) and publishers that
 * check the number in it read it, and D's CAS fails for anyone who read a stale
 * entry.
 *
 * Size queries. num_packets is write.commit - read.commit: packets published
 * and not yet consumed (a reader's and a writer's view differ by what is in
 * flight; the answer is stale as soon as it is read, as the specification says).
 *
 * A reservation never committed stops its side at that reservation for good:
 * later ones are published only after it (the specification makes an
 * uncommitted reservation undefined behaviour). An id committed twice, or an id
 * whose entry was reused, is ignored.
 */
#ifndef KILN_KERNEL_LIB_KILN_PIPE_H
#define KILN_KERNEL_LIB_KILN_PIPE_H

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
#define KILN_PIPE_CAS_WEAK(obj, expected, v, ok, fail)                                             \
    atomic_compare_exchange_weak_explicit((obj), (expected), (v), (ok), (fail))
#define KILN_PIPE_CAS(obj, expected, v, ok, fail)                                                  \
    atomic_compare_exchange_strong_explicit((obj), (expected), (v), (ok), (fail))
#endif

/* Reservations per side in flight at once (a power of two dividing 2^31). */
#define KILN_PIPE_MAX_RESERVATIONS 1024u
/* The largest packet (CL_DEVICE_PIPE_MAX_PACKET_SIZE). */
#define KILN_PIPE_MAX_PACKET_SIZE 1024u
/* The most packets a pipe may hold: the ring needs slots < 2^31. */
#define KILN_PIPE_MAX_PACKETS (1u << 30)
/* What reserve answers when it fails: CLK_NULL_RESERVE_ID's bits. */
#define KILN_PIPE_NULL_ID (~(kiln_pipe_u64)0)

#define KILN_PIPE_WRITE 0
#define KILN_PIPE_READ  1

#define KILN_PIPE_SEQ_MASK 0x7fffffffu
#define KILN_PIPE_DONE     ((kiln_pipe_u64)1 << 63)

/* One side: reserve and commit on separate cache lines, then the table. */
struct kiln_pipe_side {
    kiln_pipe_atomic reserve; /* atomic; advanced by this side's reservers */
    kiln_pipe_u64 pad0[15];
    kiln_pipe_atomic commit; /* atomic; advanced by this side's committers */
    kiln_pipe_u64 pad1[15];
    kiln_pipe_atomic table[KILN_PIPE_MAX_RESERVATIONS]; /* atomic; entry q % size */
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

/* The packet storage after the header. */
static inline KILN_PIPE_GLOBAL unsigned char *kiln_pipe_data(KILN_PIPE_GLOBAL struct kiln_pipe *p)
{
    return (KILN_PIPE_GLOBAL unsigned char *)p + sizeof(struct kiln_pipe);
}

static inline kiln_pipe_u64 kiln_pipe_pack(kiln_pipe_u32 seq, kiln_pipe_u32 idx)
{
    return ((kiln_pipe_u64)(seq & KILN_PIPE_SEQ_MASK) << 32) | idx;
}

static inline kiln_pipe_u32 kiln_pipe_seq(kiln_pipe_u64 w)
{
    return (kiln_pipe_u32)(w >> 32) & KILN_PIPE_SEQ_MASK;
}

static inline int kiln_pipe_id_valid(kiln_pipe_u64 id)
{
    return (id >> 63) == 0;
}

/*
 * Reserves n packets on `side`. Returns the reservation id, or KILN_PIPE_NULL_ID
 * when n is 0 or above the capacity, when there are not n free packets (write) or
 * n published unreserved packets (read), or when the side's table is full.
 */
static inline kiln_pipe_u64 kiln_pipe_reserve(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side,
                                              kiln_pipe_u32 n)
{
    KILN_PIPE_GLOBAL struct kiln_pipe_side *s = &p->side[side];
    KILN_PIPE_GLOBAL struct kiln_pipe_side *o = &p->side[side ^ 1];
    if (n == 0 || n > p->max_packets)
        return KILN_PIPE_NULL_ID;
    for (;;) {
        /* A: acquire, pairs with D on the other side. Loaded before our reserve,
         * so that for a writer the read side's commit never passes our index. */
        kiln_pipe_u64 other = KILN_PIPE_LOAD(&o->commit, __ATOMIC_ACQUIRE);
        kiln_pipe_u64 cur = KILN_PIPE_LOAD(&s->reserve, __ATOMIC_ACQUIRE);
        kiln_pipe_u64 mine = KILN_PIPE_LOAD(&s->commit, __ATOMIC_RELAXED);
        kiln_pipe_u32 seq = kiln_pipe_seq(cur), idx = (kiln_pipe_u32)cur;
        /* Writers: packets in the ring (0 to max_packets); readers: minus the
         * published unreserved packets (0 or less). Outside that range one load
         * is stale next to the other (a thread paused between them while the
         * ring moved on): load both again. */
        int ahead = (int)(idx - (kiln_pipe_u32)other);
        if (side == KILN_PIPE_WRITE ? ahead < 0 || (kiln_pipe_u32)ahead > p->max_packets
                                    : ahead > 0)
            continue;
        kiln_pipe_u32 room =
            side == KILN_PIPE_WRITE ? p->max_packets - (kiln_pipe_u32)ahead : (kiln_pipe_u32)-ahead;
        if (n > room)
            return KILN_PIPE_NULL_ID;
        if (((seq - kiln_pipe_seq(mine)) & KILN_PIPE_SEQ_MASK) >= KILN_PIPE_MAX_RESERVATIONS)
            return KILN_PIPE_NULL_ID;
        /* Release on success so that a reader that loads reserve with acquire
         * also sees the write.commit this reservation was checked against. */
        if (KILN_PIPE_CAS_WEAK(&s->reserve, &cur, kiln_pipe_pack(seq + 1, idx + n),
                               __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
            KILN_PIPE_STORE(&s->table[seq % KILN_PIPE_MAX_RESERVATIONS],
                            ((kiln_pipe_u64)(seq & KILN_PIPE_SEQ_MASK) << 32) | n,
                            __ATOMIC_RELAXED);
            return kiln_pipe_pack(seq, idx);
        }
    }
}

/* The live (reserved, not yet committed) table entry of `id`, or 0 if it has none. */
static inline kiln_pipe_u64 kiln_pipe_entry(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side,
                                            kiln_pipe_u64 id)
{
    if (!kiln_pipe_id_valid(id))
        return 0;
    kiln_pipe_u32 seq = kiln_pipe_seq(id);
    kiln_pipe_u64 e =
        KILN_PIPE_LOAD(&p->side[side].table[seq % KILN_PIPE_MAX_RESERVATIONS], __ATOMIC_RELAXED);
    if ((e & KILN_PIPE_DONE) || kiln_pipe_seq(e) != seq)
        return 0;
    return e;
}

/*
 * The packet `i` of reservation `id`, or a null pointer when the id is not a live
 * reservation of this side or i is not below its count.
 */
static inline KILN_PIPE_GLOBAL unsigned char *
kiln_pipe_packet(KILN_PIPE_GLOBAL struct kiln_pipe *p, int side, kiln_pipe_u64 id, kiln_pipe_u32 i)
{
    kiln_pipe_u64 e = kiln_pipe_entry(p, side, id);
    if (i >= (kiln_pipe_u32)e) /* also when e is 0 */
        return (KILN_PIPE_GLOBAL unsigned char *)0;
    kiln_pipe_u32 slot = ((kiln_pipe_u32)id + i) & p->mask;
    return kiln_pipe_data(p) + (kiln_pipe_u64)slot * p->packet_size;
}

/* Advances `side`'s commit over every consecutive done reservation. */
static inline void kiln_pipe_publish(KILN_PIPE_GLOBAL struct kiln_pipe_side *s)
{
    /* C: seq_cst, against B of a committer whose reservation is next. */
    kiln_pipe_u64 c = KILN_PIPE_LOAD(&s->commit, __ATOMIC_SEQ_CST);
    for (;;) {
        kiln_pipe_u32 seq = kiln_pipe_seq(c);
        /* Acquire (seq_cst), pairs with B. */
        kiln_pipe_u64 e =
            KILN_PIPE_LOAD(&s->table[seq % KILN_PIPE_MAX_RESERVATIONS], __ATOMIC_SEQ_CST);
        if (!(e & KILN_PIPE_DONE) || kiln_pipe_seq(e) != seq)
            return;
        kiln_pipe_u64 next = kiln_pipe_pack(seq + 1, (kiln_pipe_u32)c + (kiln_pipe_u32)e);
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
    KILN_PIPE_GLOBAL struct kiln_pipe_side *s = &p->side[side];
    /* B: release (seq_cst), pairs with the entry load in publish. */
    KILN_PIPE_STORE(&s->table[kiln_pipe_seq(id) % KILN_PIPE_MAX_RESERVATIONS], e | KILN_PIPE_DONE,
                    __ATOMIC_SEQ_CST);
    kiln_pipe_publish(s);
}

/* Packets published and not yet consumed, at most max_packets. */
static inline kiln_pipe_u32 kiln_pipe_num_packets(KILN_PIPE_GLOBAL struct kiln_pipe *p)
{
    kiln_pipe_u64 r = KILN_PIPE_LOAD(&p->side[KILN_PIPE_READ].commit, __ATOMIC_ACQUIRE);
    kiln_pipe_u64 w = KILN_PIPE_LOAD(&p->side[KILN_PIPE_WRITE].commit, __ATOMIC_ACQUIRE);
    int n = (int)((kiln_pipe_u32)w - (kiln_pipe_u32)r);
    if (n < 0)
        return 0;
    return (kiln_pipe_u32)n < p->max_packets ? (kiln_pipe_u32)n : p->max_packets;
}

#if !defined(__OPENCL_C_VERSION__)
/*
 * Makes `p` an empty pipe (the caller allocated sizeof(struct kiln_pipe) +
 * kiln_pipe_slots(max_packets) * packet_size bytes). Not for concurrent use.
 */
static inline void kiln_pipe_init(KILN_PIPE_GLOBAL struct kiln_pipe *p, kiln_pipe_u32 packet_size,
                                  kiln_pipe_u32 max_packets)
{
    p->packet_size = packet_size;
    p->max_packets = max_packets;
    p->mask = kiln_pipe_slots(max_packets) - 1;
    p->reserved = 0;
    for (int side = 0; side < 2; side++) {
        atomic_init(&p->side[side].reserve, 0);
        atomic_init(&p->side[side].commit, 0);
        /* Entry q holds q - size, done: never a live reservation, never publishable
         * as q (publish checks the number). */
        for (kiln_pipe_u32 q = 0; q < KILN_PIPE_MAX_RESERVATIONS; q++)
            atomic_init(
                &p->side[side].table[q],
                KILN_PIPE_DONE |
                    ((kiln_pipe_u64)((q - KILN_PIPE_MAX_RESERVATIONS) & KILN_PIPE_SEQ_MASK) << 32));
    }
}

#endif

#endif
