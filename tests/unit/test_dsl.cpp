int dummy_dsl;
