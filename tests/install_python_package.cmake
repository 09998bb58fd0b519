# ctest's python.install: a fresh virtual environment VENV (with the system's
# site packages: Debian's h5py and numpy) and python/ installed into it with
# pip, offline, as the package's README says; then a check that the installed
# module (not the source tree) is the one imported.
file(REMOVE_RECURSE ${VENV} ${WORK})
file(COPY ${SOURCE}/ DESTINATION ${WORK} PATTERN "__pycache__" EXCLUDE PATTERN "*.egg-info" EXCLUDE)
execute_process(COMMAND ${PYTHON} -m venv --system-site-packages ${VENV} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "python3 -m venv failed (${rc}): install python3-venv (scripts/deps.sh)")
endif()
execute_process(COMMAND ${VENV}/bin/pip install --quiet --no-index --no-build-isolation ${WORK}
                RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "pip install of the chomp_results package failed (${rc})")
endif()
execute_process(COMMAND ${VENV}/bin/python3 -c
                  "import chomp_results as cr, sys; print(cr.__version__, cr.__file__); sys.exit(0 if '/site-packages/' in cr.__file__ else 1)"
                WORKING_DIRECTORY ${VENV} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message(STATUS "installed: ${out}")
if(rc)
  message(FATAL_ERROR "the venv does not import the installed chomp_results")
endif()
