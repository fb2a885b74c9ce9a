# kiln_write_if_changed(path content): writes content to path unless the file already
# holds exactly that, so that a regeneration which changes nothing rebuilds nothing.
# Used by the script-mode generators (embed_text.cmake, source_id.cmake).
function(kiln_write_if_changed path content)
  if(EXISTS ${path})
    file(READ ${path} old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE ${path} "${content}")
endfunction()
