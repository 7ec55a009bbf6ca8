/*
 * Pipe built-in functions (OpenCL C 3.0 §6.15.16) on the ring of kiln_pipe.h:
 * read_pipe and write_pipe with and without a reservation, reserve_/commit_ for
 * work-items and work-groups, is_valid_reserve_id, get_pipe_num_packets and
 * get_pipe_max_packets.
 *
 * Clang lowers the pipe built-ins to unmangled functions whose last two
 * arguments are the packet type's size and alignment (constants at every call),
 * with the pipe as a __global pointer (here, to its struct kiln_pipe) and a
 * reserve_id_t as a private pointer, whose bits are the ring's reservation id:
 *   int  __read_pipe_2(pipe, void *packet, size, align)
 *   int  __read_pipe_4(pipe, reserve_id, uint index, void *packet, size, align)
 *   reserve_id_t __{,work_group_}reserve_{read,write}_pipe(pipe, uint n, size, align)
 *   void __{,work_group_}commit_{read,write}_pipe(pipe, reserve_id, size, align)
 *   uint __get_pipe_{num,max}_packets_{ro,wo}(pipe, size, align)
 * and likewise for write. Every one checks the packet size against the pipe's, so
 * a pipe of another packet size fails every call (reservation: CLK_NULL_RESERVE_ID;
 * read/write: -1) rather than copy the wrong bytes. CLK_NULL_RESERVE_ID or an
 * index outside the reservation makes read_pipe/write_pipe return -1, and commit
 * ignores an id that is not a live reservation; a stale or made-up id reaches
 * packets of the pipe, never memory outside it.
 *
 * The work-group forms are collectives: every work-item of the group encounters
 * them with the same arguments. Work-item 0 reserves (or commits) for the group
 * between barriers, and the id travels through the result area of
 * ctx->group_shared as the work-group collectives' values do (workgroup.cl); the
 * barriers make a kernel calling them a barrier kernel for the region transform
 * and the fibers, so the compiler needs no special knowledge of these names.
 * The commit's barrier also orders every work-item's packet accesses before the
 * commit publishes them.
 *
 * The sub-group forms (__sub_group_reserve_*_pipe, __sub_group_commit_*_pipe) are
 * the work-item forms: every sub-group is a single work-item (workgroup/subgroup.cl).
 */
#include "kiln_lib.h"
#include "kiln_pipe.h"

typedef __global struct kiln_pipe *kiln_pipe_t;

#define KILN_PIPE_FENCE (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

static ulong kiln_rid_bits(__private void *rid)
{
    return (ulong)rid;
}

static __private void *kiln_rid(ulong id)
{
    return (__private void *)id;
}

/*
 * Copies one packet. size and align are constants once inlined, so one branch
 * remains and its loop unrolls into plain (vector) moves.
 */
static void kiln_pipe_copy(void *dst, const void *src, uint size, uint align)
{
    if (align >= 8 && size % 8 == 0) {
        for (uint i = 0; i < size / 8; i++)
            ((ulong *)dst)[i] = ((const ulong *)src)[i];
    } else if (align >= 4 && size % 4 == 0) {
        for (uint i = 0; i < size / 4; i++)
            ((uint *)dst)[i] = ((const uint *)src)[i];
    } else if (align >= 2 && size % 2 == 0) {
        for (uint i = 0; i < size / 2; i++)
            ((ushort *)dst)[i] = ((const ushort *)src)[i];
    } else {
        for (uint i = 0; i < size; i++)
            ((uchar *)dst)[i] = ((const uchar *)src)[i];
    }
}

/*
 * The slot of ring index `idx`, for packets of `size` bytes: the caller has checked
 * that size is the pipe's packet size, so the constant strides the ring.
 */
static __global uchar *kiln_pipe_slot(kiln_pipe_t p, ulong idx, uint size)
{
    return kiln_pipe_data(p) + (idx & KILN_PIPE_FIXED(p, mask)) * size;
}

/* Moves one packet between a work-item's data and the pipe, in the direction of `side`. */
static void kiln_pipe_move(int side, void *data, __global uchar *packet, uint size, uint align)
{
    if (side == KILN_PIPE_READ)
        kiln_pipe_copy(data, packet, size, align);
    else
        kiln_pipe_copy(packet, data, size, align);
}

/* One packet without a reservation id: reserve one, copy, commit. */
static int kiln_pipe_one(kiln_pipe_t p, int side, void *data, uint size, uint align)
{
    if (size != KILN_PIPE_FIXED(p, packet_size))
        return -1;
    ulong id = kiln_pipe_reserve(p, side, 1, 0);
    if (!kiln_pipe_id_valid(id))
        return -1;
    kiln_pipe_move(side, data, kiln_pipe_slot(p, id, size), size, align);
    kiln_pipe_commit(p, side, id);
    return 0;
}

/*
 * Packet `index` of reservation `rid`: the checks of kiln_pipe_packet (kiln_pipe.h)
 * and the packet size's, folded into one branch.
 */
static int kiln_pipe_at(kiln_pipe_t p, int side, __private void *rid, uint index, void *data,
                        uint size, uint align)
{
    ulong id = kiln_rid_bits(rid);
    uint mask = KILN_PIPE_FIXED(p, mask);
    /*
     * index <= mask follows from index < count (a count is at most max_packets, at most
     * the slots); testing it puts the mask's load before the branch, where LLVM hoists it
     * out of a work-item loop (it cannot hoist a load from conditional code).
     */
    if (!(kiln_pipe_id_valid(id) & (index < kiln_pipe_id_count(id)) & (index <= mask) &
          (size == KILN_PIPE_FIXED(p, packet_size))))
        return -1;
    kiln_pipe_move(side, data, kiln_pipe_slot(p, id + index, size), size, align);
    return 0;
}

static __private void *kiln_pipe_reserve_rid(kiln_pipe_t p, int side, uint n, uint size)
{
    if (size != KILN_PIPE_FIXED(p, packet_size))
        return kiln_rid(KILN_PIPE_NULL_ID);
    return kiln_rid(kiln_pipe_reserve(p, side, n, 1));
}

/*
 * read_pipe/write_pipe without a reservation id, at a call every work-item of the group makes
 * once (2-link/pipe_groups.c puts these in for __read_pipe_2/__write_pipe_2 where it proves
 * that): one reservation for the whole group, in which work-item k takes packet k, committed
 * after the group's last access. Where the pipe lacks room (write) or packets (read) for the
 * whole group, or the group's packets do not fit a spill area, every work-item makes its own
 * one-packet call, as without the batch. Either way each work-item gets an outcome one of the
 * orders of the group's one-packet calls could give it: the specification orders none of them.
 *
 * The work-items access consecutive packets (vector moves once the work-item loop is
 * vectorised): the reservation's own slots, or, when it wraps round the ring, the side's spill
 * area (kiln_pipe.h), which the leader fills from the ring before a read and empties into it
 * after a write. kiln_pipe_spill_move does either for a reservation that wraps.
 */
static void kiln_pipe_spill_move(kiln_pipe_t p, int side, ulong id, uint size, uint align)
{
    uint n = kiln_pipe_id_count(id);
    if ((id & KILN_PIPE_FIXED(p, mask)) + n <= (ulong)KILN_PIPE_FIXED(p, mask) + 1)
        return;
    __global uchar *spill = kiln_pipe_spill(p, side);
    for (uint i = 0; i < n; i++)
        kiln_pipe_move(side, spill + (ulong)i * size, kiln_pipe_slot(p, id + i, size), size, align);
}

/*
 * A work-group's reservation of n packets: work-item 0 reserves between barriers and every
 * work-item gets the id through the collectives' result area. A `batch` reservation is the
 * one-packet calls' (above): not counted among the active reservations (the one-packet calls
 * it stands for are not), and a read that wraps is in the spill area before anyone looks.
 */
static ulong kiln_pipe_group_reserve_id(kiln_pipe_t p, int side, uint n, uint size, uint align,
                                        bool batch)
{
    const struct kiln_wg_ctx *ctx = __kiln_ctx();
    __global ulong *r = (__global ulong *)(ctx->group_shared + KILN_GROUP_SHARED_SLOTS * 8);
    barrier(KILN_PIPE_FENCE); /* nobody still reads the area */
    if (__kiln_group_leader()) {
        ulong id = size == KILN_PIPE_FIXED(p, packet_size) ? kiln_pipe_reserve(p, side, n, !batch)
                                                           : KILN_PIPE_NULL_ID;
        if (batch && side == KILN_PIPE_READ && kiln_pipe_id_valid(id))
            kiln_pipe_spill_move(p, side, id, size, align);
        *r = id;
    }
    barrier(KILN_PIPE_FENCE);
    return *r;
}

/* The group's commit, after every work-item's packet accesses; a batch write that wraps goes
 * from the spill area into the ring first. */
static void kiln_pipe_group_commit_id(kiln_pipe_t p, int side, ulong id, uint size, uint align,
                                      bool batch)
{
    barrier(KILN_PIPE_FENCE); /* every work-item's packets are in place */
    if (__kiln_group_leader() && kiln_pipe_id_valid(id)) {
        if (batch && side == KILN_PIPE_WRITE)
            kiln_pipe_spill_move(p, side, id, size, align);
        kiln_pipe_commit(p, side, id);
    }
}

static int kiln_pipe_group_one(kiln_pipe_t p, int side, void *data, uint size, uint align)
{
    const struct kiln_wg_ctx *ctx = __kiln_ctx();
    uint n = (uint)(ctx->local_size[0] * ctx->local_size[1] * ctx->local_size[2]);
    uint slots = KILN_PIPE_FIXED(p, mask) + 1;
    if (size != KILN_PIPE_FIXED(p, packet_size) ||
        (ulong)n * size > kiln_pipe_spill_bytes(slots, size))
        return kiln_pipe_one(p, side, data, size, align);
    ulong id = kiln_pipe_group_reserve_id(p, side, n, size, align, true);
    /*
     * Without a reservation each work-item makes its own call, after the group's commit
     * barrier: the stretch between the two barriers then holds no atomic operation, so the
     * work-group function's loop over it moves the packets as vectors (an acquire in that loop
     * would make the compiler reload `id` for every work-item and keep the loop scalar).
     */
    bool reserved = kiln_pipe_id_valid(id);
    if (reserved) {
        ulong first = id & KILN_PIPE_FIXED(p, mask);
        __global uchar *base =
            first + n > slots ? kiln_pipe_spill(p, side) : kiln_pipe_data(p) + first * size;
        kiln_pipe_move(side, data, base + (ulong)get_local_linear_id() * size, size, align);
    }
    kiln_pipe_group_commit_id(p, side, id, size, align, true);
    return reserved ? 0 : kiln_pipe_one(p, side, data, size, align);
}

int __kiln_read_pipe_group(kiln_pipe_t p, void *data, uint size, uint align)
{
    return kiln_pipe_group_one(p, KILN_PIPE_READ, data, size, align);
}

int __kiln_write_pipe_group(kiln_pipe_t p, void *data, uint size, uint align)
{
    return kiln_pipe_group_one(p, KILN_PIPE_WRITE, data, size, align);
}

int __read_pipe_2(kiln_pipe_t p, void *data, uint size, uint align)
{
    return kiln_pipe_one(p, KILN_PIPE_READ, data, size, align);
}

int __write_pipe_2(kiln_pipe_t p, void *data, uint size, uint align)
{
    return kiln_pipe_one(p, KILN_PIPE_WRITE, data, size, align);
}

int __read_pipe_4(kiln_pipe_t p, __private void *rid, uint index, void *data, uint size, uint align)
{
    return kiln_pipe_at(p, KILN_PIPE_READ, rid, index, data, size, align);
}

int __write_pipe_4(kiln_pipe_t p, __private void *rid, uint index, void *data, uint size,
                   uint align)
{
    return kiln_pipe_at(p, KILN_PIPE_WRITE, rid, index, data, size, align);
}

/* reserve_/commit_ for one side, for a work-item and for a work-group. */
#define KILN_PIPE_SIDE(RW, SIDE)                                                                   \
    __private void *__reserve_##RW##_pipe(kiln_pipe_t p, uint n, uint size, uint align)            \
    {                                                                                              \
        return kiln_pipe_reserve_rid(p, SIDE, n, size);                                            \
    }                                                                                              \
    void __commit_##RW##_pipe(kiln_pipe_t p, __private void *rid, uint size, uint align)           \
    {                                                                                              \
        kiln_pipe_commit(p, SIDE, kiln_rid_bits(rid));                                             \
    }                                                                                              \
    __private void *__work_group_reserve_##RW##_pipe(kiln_pipe_t p, uint n, uint size, uint align) \
    {                                                                                              \
        return kiln_rid(kiln_pipe_group_reserve_id(p, SIDE, n, size, align, false));               \
    }                                                                                              \
    void __work_group_commit_##RW##_pipe(kiln_pipe_t p, __private void *rid, uint size,            \
                                         uint align)                                               \
    {                                                                                              \
        kiln_pipe_group_commit_id(p, SIDE, kiln_rid_bits(rid), size, align, false);                \
    }                                                                                              \
    /* a sub-group is one work-item: its reservation is the work-item's */                         \
    __private void *__sub_group_reserve_##RW##_pipe(kiln_pipe_t p, uint n, uint size, uint align)  \
    {                                                                                              \
        return __reserve_##RW##_pipe(p, n, size, align);                                           \
    }                                                                                              \
    void __sub_group_commit_##RW##_pipe(kiln_pipe_t p, __private void *rid, uint size, uint align) \
    {                                                                                              \
        __commit_##RW##_pipe(p, rid, size, align);                                                 \
    }

KILN_PIPE_SIDE(read, KILN_PIPE_READ)
KILN_PIPE_SIDE(write, KILN_PIPE_WRITE)

/* get_pipe_num_packets, get_pipe_max_packets on read_only (ro) and write_only (wo) pipes. */
#define KILN_PIPE_QUERIES(RW)                                                                      \
    uint __get_pipe_num_packets_##RW(kiln_pipe_t p, uint size, uint align)                         \
    {                                                                                              \
        return kiln_pipe_num_packets(p);                                                           \
    }                                                                                              \
    uint __get_pipe_max_packets_##RW(kiln_pipe_t p, uint size, uint align)                         \
    {                                                                                              \
        return KILN_PIPE_FIXED(p, max_packets);                                                    \
    }

KILN_PIPE_QUERIES(ro)
KILN_PIPE_QUERIES(wo)

bool KILN_OVERLOAD is_valid_reserve_id(reserve_id_t reserve_id)
{
    return kiln_pipe_id_valid((ulong)__builtin_astype(reserve_id, __private void *));
}
