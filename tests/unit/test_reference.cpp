int dummy_ref;
