# api/conv-names: every conversion, vector-data and shuffle builtin a kernel can name
# (tests/api/conv_names.cl, compiled with the kernels' cc1 flags at -cl-std=CL1.2 and
# CL3.0) is defined by the kernel library. Run with cmake -P; the caller passes CLANG,
# NM, FLAGS (a ;-list), INCLUDE (Clang's header directory), SOURCE, LIBRARY and WORKDIR,
# and MIN_CALLS, the fewest functions SOURCE must call (so that a source that compiles
# to nothing fails; 6000 unless given). api/half-math-names runs it on half_math_names.cl.
cmake_minimum_required(VERSION 3.16)
if(NOT DEFINED MIN_CALLS)
  set(MIN_CALLS 6000)
endif()
get_filename_component(stem ${SOURCE} NAME_WE)
execute_process(COMMAND ${NM} --defined-only --format=just-symbols ${LIBRARY}
  OUTPUT_VARIABLE defined RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "llvm-nm failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" defined "${defined}")
foreach(std CL1.2 CL3.0)
  set(bc ${WORKDIR}/${stem}.${std}.bc)
  execute_process(COMMAND ${CLANG} -cc1 ${FLAGS} -cl-std=${std} -internal-isystem ${INCLUDE}
      -Wno-psabi -emit-llvm-bc -o ${bc} -x cl ${SOURCE}
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${std}: compiling ${SOURCE} failed:\n${err}")
  endif()
  execute_process(COMMAND ${NM} --undefined-only --format=just-symbols ${bc}
    OUTPUT_VARIABLE called RESULT_VARIABLE rc)
  string(REPLACE "\n" ";" called "${called}")
  list(REMOVE_ITEM called "")
  list(LENGTH called ncalled)
  set(missing ${called})
  list(REMOVE_ITEM missing ${defined})
  list(LENGTH missing nmissing)
  if(ncalled LESS MIN_CALLS OR nmissing GREATER 0)
    message(SEND_ERROR "${std}: ${nmissing} of ${ncalled} functions undefined: ${missing}")
  else()
    message(STATUS "${std}: all ${ncalled} functions called are defined")
  endif()
endforeach()
