# SPDX-License-Identifier: Apache-2.0
# kbpf_add_bpf_object(<name> SOURCES <file.bpf.c> [CPU <v1|v2|v3|v4>] [INCLUDES <dir>...]
#                     [FLAGS <flag>...] [DEPENDS <file>...] [OUTPUT <path>] [SKELETON] [ALL])
#
# Compile BPF C into an object kbpf loads (docs/loader.md), with the flags that work on
# Debian: clang -O2 -g -target bpf -mcpu=<CPU> (default v3), libbpf's headers, and the
# multiarch include directory (/usr/include/x86_64-linux-gnu: <asm/types.h>, reached
# from <linux/bpf.h>; glibc's <bits/…> from <stdint.h>) after cmake/bpf-include (an LP64
# <bits/wordsize.h> and an empty <gnu/stubs.h>: glibc's want __x86_64__ and the 32-bit
# stubs, which -target bpf has neither of). -Wall -Werror unless FLAGS
# says otherwise (FLAGS come last).
#   SOURCES   one BPF C file (clang builds one object per translation unit)
#   OUTPUT    where the object goes; default ${CMAKE_CURRENT_BINARY_DIR}/<name>.bpf.o
#   SKELETON  also write <name>.skel.h beside it with `kbpf gen skeleton` (needs the
#             kbpf-tool target, or KBPF_TOOL set to a kbpf command)
#   ALL       build it with the default target
# Creates the custom target <name> (add_dependencies on it); its properties
# KBPF_BPF_OBJECT and KBPF_BPF_SKELETON hold the paths, and the variables
# <name>_BPF_OBJECT and <name>_BPF_SKELETON are set in the caller's scope.
# Result variable of including this file: KBPF_BPF_CLANG (empty when clang is missing:
# kbpf_add_bpf_object then fails, so check it to make BPF objects optional).

set(_KBPF_BPF_INCLUDE_SHIM ${CMAKE_CURRENT_LIST_DIR}/bpf-include) # bits/wordsize.h, gnu/stubs.h
find_program(KBPF_BPF_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
find_path(KBPF_LIBBPF_INCLUDE bpf/bpf_helpers.h)

# The multiarch directory: CMake's own idea of it, else gcc's.
if(CMAKE_LIBRARY_ARCHITECTURE)
  set(KBPF_BPF_MULTIARCH_INCLUDE /usr/include/${CMAKE_LIBRARY_ARCHITECTURE})
else()
  execute_process(COMMAND gcc -print-multiarch OUTPUT_VARIABLE _kbpf_multiarch
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE _kbpf_rc)
  if(_kbpf_rc EQUAL 0 AND _kbpf_multiarch)
    set(KBPF_BPF_MULTIARCH_INCLUDE /usr/include/${_kbpf_multiarch})
  endif()
endif()

function(kbpf_add_bpf_object name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "SKELETON;ALL" "CPU;OUTPUT" "SOURCES;INCLUDES;FLAGS;DEPENDS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "kbpf_add_bpf_object(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  list(LENGTH ARG_SOURCES _n)
  if(NOT _n EQUAL 1)
    message(FATAL_ERROR "kbpf_add_bpf_object(${name}): SOURCES takes one BPF C file, got ${_n}")
  endif()
  if(NOT KBPF_BPF_CLANG)
    message(FATAL_ERROR "kbpf_add_bpf_object(${name}): clang not found (apt install clang)")
  endif()
  if(NOT ARG_CPU)
    set(ARG_CPU v3)
  endif()
  if(NOT ARG_CPU MATCHES "^(v1|v2|v3|v4|probe|generic)$")
    message(FATAL_ERROR "kbpf_add_bpf_object(${name}): CPU ${ARG_CPU}: expected v1, v2, v3 or v4")
  endif()
  get_filename_component(_src ${ARG_SOURCES} ABSOLUTE)
  if(ARG_OUTPUT)
    set(_obj ${ARG_OUTPUT})
  else()
    set(_obj ${CMAKE_CURRENT_BINARY_DIR}/${name}.bpf.o)
  endif()
  set(_flags -O2 -g -target bpf -mcpu=${ARG_CPU} -Wall -Werror)
  if(KBPF_LIBBPF_INCLUDE)
    list(APPEND _flags -I${KBPF_LIBBPF_INCLUDE})
  endif()
  foreach(_dir ${ARG_INCLUDES})
    get_filename_component(_dir ${_dir} ABSOLUTE)
    list(APPEND _flags -I${_dir})
  endforeach()
  # after the project's own: <asm/types.h> and glibc's <bits/…> of the build machine's
  # arch, with kbpf's LP64 <bits/wordsize.h> and empty <gnu/stubs.h> before them
  if(KBPF_BPF_MULTIARCH_INCLUDE)
    list(APPEND _flags -I${_KBPF_BPF_INCLUDE_SHIM} -idirafter ${KBPF_BPF_MULTIARCH_INCLUDE})
  endif()
  list(APPEND _flags ${ARG_FLAGS})
  get_filename_component(_obj_name ${_obj} NAME)
  add_custom_command(OUTPUT ${_obj}
    COMMAND ${KBPF_BPF_CLANG} ${_flags} -c ${_src} -o ${_obj}
    DEPENDS ${_src} ${ARG_DEPENDS}
    IMPLICIT_DEPENDS C ${_src}
    COMMENT "clang -target bpf: ${_obj_name}"
    VERBATIM)
  set(_outputs ${_obj})
  set(_skel "")
  if(ARG_SKELETON)
    string(REGEX REPLACE "\\.bpf\\.o$|\\.o$" "" _base ${_obj})
    set(_skel ${_base}.skel.h)
    if(TARGET kbpf-tool)
      set(_tool $<TARGET_FILE:kbpf-tool>)
      set(_tool_dep kbpf-tool)
    elseif(KBPF_TOOL)
      set(_tool ${KBPF_TOOL})
      set(_tool_dep "")
    else()
      message(FATAL_ERROR "kbpf_add_bpf_object(${name}) SKELETON: no kbpf command (the kbpf-tool target, "
                          "or set KBPF_TOOL)")
    endif()
    add_custom_command(OUTPUT ${_skel}
      COMMAND ${_tool} gen skeleton --name ${name} ${_obj} -o ${_skel}
      DEPENDS ${_obj} ${_tool_dep}
      COMMENT "kbpf gen skeleton: ${name}.skel.h"
      VERBATIM)
    list(APPEND _outputs ${_skel})
  endif()
  if(ARG_ALL)
    add_custom_target(${name} ALL DEPENDS ${_outputs})
  else()
    add_custom_target(${name} DEPENDS ${_outputs})
  endif()
  set_target_properties(${name} PROPERTIES KBPF_BPF_OBJECT ${_obj} KBPF_BPF_SKELETON "${_skel}")
  set(${name}_BPF_OBJECT ${_obj} PARENT_SCOPE)
  set(${name}_BPF_SKELETON ${_skel} PARENT_SCOPE)
endfunction()
