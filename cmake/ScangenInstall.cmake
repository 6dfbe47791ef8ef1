# `cmake --install`: the scangen program, the libraries as static libraries
# with their public headers, and the package configuration, so that
# find_package(scangen CONFIG REQUIRED) works from the install prefix and
# gives scangen::scangen, scangen::dsl, scangen::generator,
# scangen::reference and scangen_generate().
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(scangen_install_targets scangen scangen_dsl scangen_reference scangen_generator)
set_target_properties(scangen_dsl PROPERTIES EXPORT_NAME dsl)
set_target_properties(scangen_reference PROPERTIES EXPORT_NAME reference)
set_target_properties(scangen_generator PROPERTIES EXPORT_NAME generator)
set(scangen_install_headers dsl/include/ reference/include/ generator/include/)

# Other parts of the project (the JIT runtime, runtime/) join the package by
# setting, before this file is included, the global properties
#   SCANGEN_INSTALL_TARGETS        targets to install and export (with the
#                                  static libraries they link privately; set
#                                  EXPORT_NAME: scangen_runtime -> runtime)
#   SCANGEN_INSTALL_HEADERS        folders of public headers, relative to the
#                                  source root, ending in / (runtime/include/)
#   SCANGEN_PACKAGE_DEPENDENCIES   find_dependency() arguments, one per entry,
#                                  for what those targets link (OpenCL, Threads)
get_property(extra_targets GLOBAL PROPERTY SCANGEN_INSTALL_TARGETS)
get_property(extra_headers GLOBAL PROPERTY SCANGEN_INSTALL_HEADERS)
get_property(scangen_package_dependencies GLOBAL PROPERTY SCANGEN_PACKAGE_DEPENDENCIES)
list(APPEND scangen_install_targets ${extra_targets})
list(APPEND scangen_install_headers ${extra_headers})
set(SCANGEN_FIND_DEPENDENCIES "")
foreach(dependency IN LISTS scangen_package_dependencies)
  string(APPEND SCANGEN_FIND_DEPENDENCIES "find_dependency(${dependency})\n")
endforeach()

install(TARGETS ${scangen_install_targets}
        EXPORT scangenTargets
        RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}"
        ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}")
foreach(dir IN LISTS scangen_install_headers)
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/${dir}" DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
          FILES_MATCHING PATTERN "*.h")
endforeach()

set(scangen_cmake_dir "${CMAKE_INSTALL_LIBDIR}/cmake/scangen")
install(EXPORT scangenTargets NAMESPACE scangen:: DESTINATION "${scangen_cmake_dir}")
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/scangenConfig.cmake.in"
                              "${PROJECT_BINARY_DIR}/scangenConfig.cmake" INSTALL_DESTINATION "${scangen_cmake_dir}")
# 0.x: a minor version may change the interfaces.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/scangenConfigVersion.cmake" VERSION "${PROJECT_VERSION}"
                                 COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/scangenConfig.cmake" "${PROJECT_BINARY_DIR}/scangenConfigVersion.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/ScangenGenerate.cmake"
              "${PROJECT_SOURCE_DIR}/cmake/ScangenFindCUDAToolkit.cmake"
        DESTINATION "${scangen_cmake_dir}")
