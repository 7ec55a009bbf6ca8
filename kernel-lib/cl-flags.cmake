# The cc1 flags of the kernel library and of user kernels.
#
# The library is linked into user modules as bitcode and inlined, so both sides are compiled
# with the same KILN_CL_CC1_FLAGS: the same triple, address-space map and builtin
# declarations; otherwise mangled names or the SysV lowering of vector arguments would
# differ. device-cpu/compiler turns these lists into a C header, so they are written only
# here.
#
# No -target-cpu: Clang's target-features are replaced with the host CPU's after linking
# (see docs/compiler.md), so the code runs on the host whatever is written here. One feature
# is set all the same, AVX-512F, for the argument lowering alone: with it Clang passes 256-
# and 512-bit vectors (float8, double8, float16) to functions that are not inlined as vectors
# rather than through memory, and does not warn, for every such call, that doing so "changes
# the ABI" (-Wpsabi). Library and kernels are lowered the same way, and every call stays
# inside one module that is compiled for one CPU, so no ABI is crossed. The macros the
# feature and those it implies define would describe a CPU other than the host: they are
# undefined again.
#
# The language the two see differs. The library is compiled with every extension and
# feature whose builtins it defines (KILN_CL_LIB_EXTENSIONS, KILN_CL_LIB_FEATURES), half
# precision included; a user kernel sees exactly what the device reports
# (runtime/device.c hands its lists to the compiler; docs/compiler.md, "What a kernel
# sees"). Turning an extension or feature off hides declarations only: the names of the
# builtins the library defines stay the same.
set(KILN_CL_TRIPLE x86_64-unknown-linux-gnu)
set(KILN_CL_CC1_FLAGS
  -triple ${KILN_CL_TRIPLE}
  -ffake-address-space-map
  -finclude-default-header -fdeclare-opencl-builtins
  -O2 -disable-llvm-passes
  -discard-value-names
  -target-feature +avx512f
  -U__AVX__ -U__AVX2__ -U__AVX512F__ -U__EVEX512__ -U__F16C__ -U__FMA__ -U__CRC32__
  -U__POPCNT__ -U__SSE3__ -U__SSSE3__ -U__SSE4_1__ -U__SSE4_2__ -U__XSAVE__)
set(KILN_CL_LIB_EXTENSIONS
  cl_khr_fp64 cl_khr_fp16
  cl_khr_int64_base_atomics cl_khr_int64_extended_atomics
  cl_khr_global_int32_base_atomics cl_khr_global_int32_extended_atomics
  cl_khr_local_int32_base_atomics cl_khr_local_int32_extended_atomics
  cl_khr_byte_addressable_store
  cl_khr_subgroups
  cl_khr_3d_image_writes cl_khr_depth_images)
set(KILN_CL_LIB_FEATURES
  __opencl_c_int64 __opencl_c_fp64
  __opencl_c_generic_address_space __opencl_c_program_scope_global_variables
  __opencl_c_atomic_order_acq_rel __opencl_c_atomic_order_seq_cst
  __opencl_c_atomic_scope_device __opencl_c_atomic_scope_all_devices
  __opencl_c_work_group_collective_functions
  __opencl_c_subgroups
  __opencl_c_pipes
  __opencl_c_images __opencl_c_read_write_images __opencl_c_3d_image_writes)
# -cl-ext sets what Clang itself checks (types, pragmas, declarations); the features Clang
# declares only through macros on x86 (its -cl-ext silently ignores them) are defined too.
set(lib_ext -all)
foreach(name ${KILN_CL_LIB_EXTENSIONS} ${KILN_CL_LIB_FEATURES})
  list(APPEND lib_ext +${name})
endforeach()
string(REPLACE ";" "," lib_ext "${lib_ext}")
set(KILN_CL_LIB_LANGUAGE_FLAGS -cl-ext=${lib_ext}
  -D__opencl_c_work_group_collective_functions=1
  -D__opencl_c_atomic_scope_device=1
  -D__opencl_c_atomic_scope_all_devices=1
  -D__IMAGE_SUPPORT__=1)
