# flurry_add_shaders(TARGET DIR): compiles every shaders/<area>/<name>.<stage>.glsl
# to SPIR-V with glslangValidator (header dependencies tracked through its depfile),
# checks each module with spirv-val, and makes TARGET depend on the results.
find_program(GLSLANG_VALIDATOR glslangValidator REQUIRED)
find_program(SPIRV_VAL spirv-val REQUIRED)

function(flurry_add_shaders target src_dir out_dir)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${src_dir}/*.glsl")
  set(outputs)
  foreach(src IN LISTS sources)
    get_filename_component(name "${src}" NAME)
    string(REGEX MATCH "\\.(comp|vert|frag)\\.glsl$" stage_match "${name}")
    if(NOT stage_match)
      continue() # an include
    endif()
    string(REGEX REPLACE "^\\.([a-z]+)\\.glsl$" "\\1" stage "${stage_match}")
    file(RELATIVE_PATH rel "${src_dir}" "${src}")
    string(REGEX REPLACE "\\.glsl$" ".spv" rel_spv "${rel}")
    set(spv "${out_dir}/${rel_spv}")
    get_filename_component(spv_dir "${spv}" DIRECTORY)
    add_custom_command(
      OUTPUT "${spv}"
      COMMAND ${CMAKE_COMMAND} -E make_directory "${spv_dir}"
      COMMAND ${GLSLANG_VALIDATOR} -V --target-env vulkan1.2 -S ${stage}
              -I${src_dir}/common --depfile "${spv}.d" -o "${spv}" "${src}" --quiet
      COMMAND ${SPIRV_VAL} --target-env vulkan1.2 "${spv}"
      DEPENDS "${src}"
      DEPFILE "${spv}.d"
      COMMENT "glslang ${rel}"
      VERBATIM)
    list(APPEND outputs "${spv}")
  endforeach()
  add_custom_target(${target} ALL DEPENDS ${outputs})
endfunction()
