# FLURRY_SANITIZE=address,undefined (or any -fsanitize list) instruments every target.
if(FLURRY_SANITIZE)
  add_compile_options(-fsanitize=${FLURRY_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${FLURRY_SANITIZE})
endif()
