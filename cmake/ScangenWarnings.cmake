# scangen_warnings(target): the project's warning set, on every target we build.
function(scangen_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                                           $<$<BOOL:${SCANGEN_WERROR}>:-Werror>)
endfunction()
