/*
 * Work-item functions (OpenCL C 3.0 §6.15.1).
 *
 * Each reads the work-group state through __kiln_ctx() and the local id through
 * __kiln_local_id(); after the compiler inlines them into the work-group loop nest
 * they become loads of loop-invariant fields plus the induction variables.
 *
 * A dimension index outside 0..2 yields what the specification prescribes for
 * dimindx >= get_work_dim(): 0 for ids and offsets, 1 for sizes. Dimensions at or
 * above work_dim but below 3 read the ctx, where the runtime stores offset 0, size 1
 * and id 0, which gives the same values.
 */
#include "kiln_lib.h"

#define KILN_DIMS 3

uint KILN_OVERLOAD get_work_dim(void)
{
    return __kiln_ctx()->work_dim;
}

size_t KILN_OVERLOAD get_global_size(uint dim)
{
    return dim < KILN_DIMS ? __kiln_ctx()->global_size[dim] : 1;
}

size_t KILN_OVERLOAD get_local_size(uint dim)
{
    return dim < KILN_DIMS ? __kiln_ctx()->local_size[dim] : 1;
}

size_t KILN_OVERLOAD get_enqueued_local_size(uint dim)
{
    return dim < KILN_DIMS ? __kiln_ctx()->enqueued_local_size[dim] : 1;
}

size_t KILN_OVERLOAD get_num_groups(uint dim)
{
    return dim < KILN_DIMS ? __kiln_ctx()->num_groups[dim] : 1;
}

size_t KILN_OVERLOAD get_group_id(uint dim)
{
    return dim < KILN_DIMS ? __kiln_ctx()->group_id[dim] : 0;
}

size_t KILN_OVERLOAD get_global_offset(uint dim)
{
    return dim < KILN_DIMS ? __kiln_ctx()->global_offset[dim] : 0;
}

size_t KILN_OVERLOAD get_local_id(uint dim)
{
    return dim < KILN_DIMS ? __kiln_local_id(dim) : 0;
}

/*
 * Groups before the last one in a dimension all have the enqueued size, so the
 * first global id of a group is group_id * enqueued_local_size (§3.2.1), also when
 * the last group is smaller.
 */
size_t KILN_OVERLOAD get_global_id(uint dim)
{
    if (dim >= KILN_DIMS)
        return 0;
    const struct kiln_wg_ctx *c = __kiln_ctx();
    return c->global_offset[dim] + c->group_id[dim] * c->enqueued_local_size[dim] +
           __kiln_local_id(dim);
}

/*
 * §6.15.1 defines the linear ids per work_dim; because unused dimensions have id 0
 * and size 1, the three-dimensional formula gives the same value for every work_dim.
 */
size_t KILN_OVERLOAD get_global_linear_id(void)
{
    const struct kiln_wg_ctx *c = __kiln_ctx();
    size_t id0 = get_global_id(0) - c->global_offset[0];
    size_t id1 = get_global_id(1) - c->global_offset[1];
    size_t id2 = get_global_id(2) - c->global_offset[2];
    return (id2 * c->global_size[1] + id1) * c->global_size[0] + id0;
}

size_t KILN_OVERLOAD get_local_linear_id(void)
{
    const struct kiln_wg_ctx *c = __kiln_ctx();
    return (__kiln_local_id(2) * c->local_size[1] + __kiln_local_id(1)) * c->local_size[0] +
           __kiln_local_id(0);
}
