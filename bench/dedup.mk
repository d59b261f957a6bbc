# dedup.mk - how bench/dedup.sh builds its helper with the Makefile's flags:
#   make -f Makefile -f bench/dedup.mk build/bench/dedup_sig
$(BUILD)/bench/dedup_sig: bench/dedup_sig.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)
