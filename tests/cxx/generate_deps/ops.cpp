// The target scangen_generate() adds the generated files to.
int scangen_generate_deps_probe() { return 0; }
