kernel void stage(global const float *in, global float *out, local float *tile)
{
    event_t e = async_work_group_copy(tile, in + get_group_id(0) * get_local_size(0),
                                      get_local_size(0), 0);
    wait_group_events(1, &e);
    tile[get_local_id(0)] *= 2.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_strided_copy(out + get_group_id(0), tile, get_local_size(0),
                                      get_num_groups(0), 0);
    wait_group_events(1, &e);
}
