# The cc1 flags shared by the kernel library and by user kernels.
#
# The library is linked into user modules as bitcode and inlined, so both sides must be
# compiled for the same triple, address-space map, builtin declarations and feature set;
# otherwise mangled names or the SysV lowering of vector arguments would differ.
# device-cpu/compiler turns this list into a C header, so it is written only here.
#
# No -target-cpu: Clang then records only baseline target-features, which the compiler
# replaces with the host CPU's after linking (see docs/compiler.md).
set(KILN_CL_TRIPLE x86_64-unknown-linux-gnu)
set(KILN_CL_EXTENSIONS
  -all
  +cl_khr_fp64 +__opencl_c_fp64 +cl_khr_fp16
  +cl_khr_int64_base_atomics +cl_khr_int64_extended_atomics
  +cl_khr_global_int32_base_atomics +cl_khr_global_int32_extended_atomics
  +cl_khr_local_int32_base_atomics +cl_khr_local_int32_extended_atomics
  +cl_khr_byte_addressable_store
  +__opencl_c_generic_address_space +__opencl_c_program_scope_global_variables
  +__opencl_c_atomic_order_acq_rel +__opencl_c_atomic_order_seq_cst
  +__opencl_c_subgroups +cl_khr_subgroups
  +__opencl_c_pipes
  +__opencl_c_images +__opencl_c_read_write_images +__opencl_c_3d_image_writes
  +cl_khr_3d_image_writes +cl_khr_depth_images)
string(REPLACE ";" "," KILN_CL_EXT_JOINED "${KILN_CL_EXTENSIONS}")
# Features Clang declares only through macros on x86 (its -cl-ext silently ignores them).
set(KILN_CL_FEATURE_DEFINES
  -D__opencl_c_work_group_collective_functions=1
  -D__opencl_c_atomic_scope_device=1
  -D__opencl_c_atomic_scope_all_devices=1
  -D__IMAGE_SUPPORT__=1)
set(KILN_CL_CC1_FLAGS
  -triple ${KILN_CL_TRIPLE}
  -ffake-address-space-map
  -finclude-default-header -fdeclare-opencl-builtins
  -O2 -disable-llvm-passes
  -discard-value-names
  -cl-ext=${KILN_CL_EXT_JOINED}
  ${KILN_CL_FEATURE_DEFINES})
