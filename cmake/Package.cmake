# Debian packages of hvd through CPack (scripts/package.sh): three, each installable on its own terms.
#   hvd          hvdrun, hvd-agent, the SSH module, libhvd, its headers, CMake package and hvd.pc, hvdrun(1),
#                bash completion
#   libhvd-torch libhvd_torch and include/hvd/torch*.h, for LibTorch programs
#   python3-hvd  the `hvd` Python package (hvd.torch) in /usr/lib/python3/dist-packages
# hvd's Depends come from dpkg-shlibdeps (Debian's package names for every library it links). The other two link
# hvd's libraries, which dpkg-shlibdeps cannot see outside their own package: they depend on the packages above them
# at this exact version, and on the exact LibTorch and python3-torch releases this build was compiled against
# (hvd_torch and the extension use their C++ ABI, which changes with every release). Every path inside is relative to the prefix (RPATHs are $ORIGIN-based, hvd.pc and
# the CMake package find their own prefix), so the files work wherever they are unpacked.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hvd)
set(CPACK_PACKAGE_VENDOR "hvd")
set(CPACK_PACKAGE_CONTACT "hvd developers <hvd@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Horovod-style distributed training: launcher, runtime and PyTorch binding")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/packages)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
# NCCL and CUDA come from /usr/local/cuda, not from a Debian package: no Depends can name them, and
# dpkg-shlibdeps is told where they are so it does not fail on them.
if(HVD_NCCL_ENABLED)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib /usr/local/cuda/lib64)
endif()

set(CPACK_DEBIAN_HVD_PACKAGE_NAME hvd)
set(CPACK_DEBIAN_TORCH_PACKAGE_NAME libhvd-torch)
set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-hvd)
set(CPACK_DEBIAN_TORCH_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SHLIBDEPS OFF)

# hvd_package_version(PACKAGE OUT): the installed Debian version of PACKAGE, empty when it is not installed.
function(hvd_package_version package out)
  execute_process(COMMAND dpkg-query -W -f=\${Version} ${package} OUTPUT_VARIABLE version ERROR_QUIET
                  RESULT_VARIABLE failed)
  if(failed)
    set(version "")
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()
if(TARGET hvd_torch)
  get_target_property(libtorch_release hvd_torch HVD_TORCH_VERSION)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" libtorch_release "${libtorch_release}")
  hvd_package_version(libtorch${libtorch_release} libtorch_version)
  if(libtorch_version)
    set(CPACK_DEBIAN_TORCH_PACKAGE_DEPENDS "libtorch${libtorch_release} (= ${libtorch_version})")
  endif()
  hvd_package_version(python3-torch python_torch_version)
  if(python_torch_version)
    set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3-torch (= ${python_torch_version}), python3")
  endif()
endif()

include(CPack)
cpack_add_component(hvd DISPLAY_NAME "hvd" DESCRIPTION "hvdrun, hvd-agent and libhvd")
cpack_add_component(torch DISPLAY_NAME "libhvd-torch" DESCRIPTION "hvd for LibTorch programs" DEPENDS hvd)
cpack_add_component(python DISPLAY_NAME "python3-hvd" DESCRIPTION "hvd.torch for PyTorch" DEPENDS torch)
