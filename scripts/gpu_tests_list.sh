# gpu_tests_list.sh - the tests with a GPU part, which skip it on a machine
# without one (CI), in groups that each fit one device bundle (64 MiB):
# what gpu_tests_bundle.sh packs and gpu_tests_device.sh runs. Set GROUP
# before sourcing; each group lists unit test programs (build/tests/NAME),
# shell tests (tests/e2e/NAME.sh), the files of ../shared/data they read
# (tokref texts and indexes: NAME.[it]*) and the environment that puts them
# on the device (GPU_TEST_ENV).
case ${GROUP:-} in
tokenize)
    GPU_UNIT_TESTS="gpu_bpe_exact gpu_bpe_emulate gpu_bpe_overlap gpu_bpe_multi"
    GPU_E2E_TESTS="gpu_tokenize_device tokenize_gpu_devices tokenize_gpu_refused text_column_jsonl"
    GPU_TEST_DATA="tokref/edge.[it]* tokref/multi.[it]* tokref/en_code.[it]* tokref/blns.[it]*
      vocab/tiktoken/cl100k_base.tiktoken vocab/tiktoken/o200k_base.tiktoken vocab/tiktoken/r50k_base.tiktoken vocab/gpt2
      vectors/gpt-tokenizer vectors/blns jsonl/dclm jsonl/olmo/test_fixtures/c4-sample.00000-of-00001.json.gz" ;;
hf) # gpu_bpe_hf on the device reads the 7 files the GPU encodes (with hf_e2e's data, one bundle
    # no longer fits the device's 64 MiB)
    GPU_UNIT_TESTS="gpu_bpe_hf"
    GPU_E2E_TESTS=""
    GPU_TEST_ENV="GPU_BPE_HF=device"
    GPU_TEST_DATA="tokref/edge.[it]* tokref/multi.[it]* tokref/en_code.[it]* tokref/blns.[it]*
      vocab/hf/gpt2.* vocab/hf/gpt4o.* vocab/hf/llama3.* vocab/hf/llama3_1.* vocab/hf/mistral_nemo.*
      vocab/hf/qwen2_5.* vocab/hf/qwen3.* vectors/gpt-tokenizer vectors/blns" ;;
hf_e2e) # tokenize_hf_gpu.sh: Qwen 3, Mistral Nemo, GPT-2 on the GPU, Llama 2 and Gemma 3 noted and on the CPU
    GPU_UNIT_TESTS=""
    GPU_E2E_TESTS="tokenize_hf_gpu"
    GPU_TEST_DATA="tokref/edge.[it]* tokref/blns.[it]*
      vocab/hf/qwen3.* vocab/hf/mistral_nemo.* vocab/hf/gpt2.* vocab/hf/llama2.* vocab/hf/gemma3.*" ;;
dedup)
    GPU_UNIT_TESTS="dedup_gpu dedup_gpu_text dedup_gpu_xxh3 core_gpu_verdict core_block_source"
    GPU_E2E_TESTS="dedup_cli pipeline_ranks"
    GPU_TEST_DATA="jsonl tokref/multi.[it]* tokref/en_code.[it]* vocab/tiktoken/cl100k_base.tiktoken
      warc/resiliparse/tests/data/warcfile.warc* warc/resiliparse/tests/data/clipped.warc.gz
      warc/whirlwind-python/whirlwind.warc.gz warc/pywb/sample_archive/warcs/iana.warc.gz
      warc/warcio/test/data/example.warc.gz" ;;
shards) # the GPU token encoder of shard frames against the host's, on real ids
    GPU_UNIT_TESTS="gpu_tlz"
    GPU_E2E_TESTS=""
    GPU_TEST_DATA="tokref/multi.cl100k_base.bin.zst tokref/en_code.cl100k_base.bin.zst tokref/multi.gpt2.bin.zst" ;;
*) echo "gpu_tests_list.sh: GROUP must be tokenize, hf, hf_e2e, dedup or shards" >&2; exit 1 ;;
esac
