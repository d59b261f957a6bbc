/* cmd_tokenize.c - `winnow tokenize`: the document stream to token ids. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/input.h"
#include "core/output.h"
#include "core/stage.h"
#include "core/util.h"
#include "shards/id_stream.h"
#include "shards/shard_writer.h"
#include "tokenize/tokenize_stage.h"
#include "tokenize/vocab.h"

#define DEFAULT_ENCODING "cl100k_base"

/* The options of tokenize_options.h are OPT_SETTING; the rest are the CLI's own. */
enum { OPT_SETTING = OPT_STAGE_FIRST_FREE, OPT_FORMAT, OPT_DECODE, OPT_IDS };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: winnow tokenize [options] [FILE|DIR|-]...\n"
            "Adds token ids to each document of the stream (JSON Lines, or JSON arrays of\n"
            "documents: their elements): byte-exact with tiktoken (and Meta's Llama 3 tokenizer),\n"
            "with Hugging Face tokenizers for a tokenizer.json, and with SentencePiece for a .model.\n\n"
            "  --encoding NAME     gpt2 (= r50k_base), p50k_base, p50k_edit, cl100k_base, o200k_base,\n"
            "                      llama3; its vocabulary comes from the cache (winnow vocab fetch NAME)\n"
            "                      or from --vocab (default: " DEFAULT_ENCODING ")\n"
            "  --vocab FILE        load the vocabulary from FILE: a .tiktoken file, Llama 3's\n"
            "                      tokenizer.model, a Hugging Face tokenizer.json (BPE, WordPiece,\n"
            "                      WordLevel, Unigram; T5, XLM-R, ALBERT files with their\n"
            "                      Precompiled charsmap), or a SentencePiece .model (Llama 2,\n"
            "                      Mistral v1-v3, Gemma, T5: encoded by libsentencepiece itself;\n"
            "                      docs/tokenize.md)\n"
            "                      With --encoding, FILE must be that encoding's (sha256 checked)\n"
            "  --pattern FAMILY    pre-tokeniser for a .tiktoken file given without --encoding:\n"
            "                      gpt2, cl100k or o200k\n"
            "  --format F          jsonl: each document line with a \"tokens\" array added, or\n"
            "                      replacing the one it has (default)\n"
            "                      bin: per document a u32 LE count, then that many u32 LE ids\n"
            "                      shards: a shard directory at -o DIR (docs/shards.md); the default\n"
            "                      when -o names a directory or ends in '/'\n"
            "  --shard-tokens N    shards: tokens per shard, k/M/G suffixes (default: 100M)\n"
            "  --split-docs        shards: cut shards at exactly N tokens, splitting documents\n"
            "  --level N           shards: zstd level of the frames, 1..22 (smaller, slower) or\n"
            "                      negative (faster, larger; default: 1); or tlz: winnow's own\n"
            "                      token encoder (zstd frames any decoder reads, ~1%% smaller\n"
            "                      than level 1's for ~5-10%% less CPU on uint32 ids)\n"
            "  --allow-special     special-token strings in the text become their ids (default:\n"
            "                      they are ordinary text, as tiktoken's encode_ordinary); for a\n"
            "                      tokenizer.json: every added token, special or not, as HF's encode;\n"
            "                      for a .model: its control symbols (<s>, </s>; user-defined symbols\n"
            "                      are always matched, as SentencePiece does)\n"
            "  --eos, --no-eos     append the end-of-text token to each document (default: on)\n"
            "  --bos, --no-bos     put the begin-of-text token first (llama3: <|begin_of_text|>,\n"
            "                      others: <|endoftext|>; default: off). A tokenizer.json whose\n"
            "                      post_processor is a template sets both the ids and the defaults\n"
            "                      (Llama 2, Gemma: BOS on, EOS off); a .model gives its bos_id and\n"
            "                      eos_id (EOS on when it has one, BOS off)\n"
            "  --decode            read --format bin streams and write each document's text back as\n"
            "                      a JSON line {\"text\":...} (special tokens appear as their names;\n"
            "                      a tokenizer.json decodes through its decoder, a .model through\n"
            "                      SentencePiece); a document with an id the vocabulary lacks is\n"
            "                      named and not written; --stats counts the documents (in, out,\n"
            "                      failed unknown_id, truncated_document or damaged_*, tokens);\n"
            "                      damaged compression ends a file's reading as for winnow shard\n"
            "                      (docs/shards.md)\n"
            "  --ids LIST          with --decode: write the text of these ids (\"15339,1917\") as raw\n"
            "                      bytes (to -o, default stdout) instead of reading streams; an id\n"
            "                      the vocabulary lacks is refused (exit 1, nothing written)\n"
            "  --device D          auto: the GPU when one is usable, else the CPU (default;\n"
            "                      input files under 1 GiB in all stay on the CPU, and stdin\n"
            "                      takes the GPU only after its first 256 MiB);\n"
            "                      cpu; gpu: fail when no GPU is usable. Same ids on both.\n"
            "                      The GPU path uses every GPU CUDA sees (CUDA_VISIBLE_DEVICES=0,1\n"
            "                      picks them), batches in turn; the output does not change.\n"
            "                      --allow-special always runs on the CPU. tokenizer.json files run on\n"
            "                      the GPU when byte-level BPE with GPT-2's, Llama 3's, GPT-4o's, Qwen's\n"
            "                      or Tekken's pattern and no normalizer or NFC (GPT-2, GPT-4o, Llama 3,\n"
            "                      Qwen 2.5/3, Mistral Nemo); others (Llama 2, Gemma, DeepSeek V3,\n"
            "                      Command R+) and SentencePiece .model files on the CPU, with a note\n"
            "                      under --device gpu\n\n");
    fputs(STAGE_COMMON_HELP, f);
}

/* True when -o names a directory: an existing one, or a path ending in '/'. */
static bool output_is_dir(const char *path)
{
    struct stat st;
    if (!path || !*path || !strcmp(path, "-")) return false;
    return path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

/* --decode: bin streams back to JSON lines of text; counted as a stage counts
 * (in: documents begun, out: decoded, failed: an id the vocabulary lacks
 * (unknown_id: not written, rather than written without it), or cut by the
 * stream's end or by damaged compression, which ends a file's reading:
 * shards/id_stream.h) into --stats and the summary. */
static int decode_streams(const tokenizer *t, const stage_opts *o)
{
    woutput *out = output_open(o->output, o->zstd_level);
    wstats counts;
    stats_init(&counts);
    int status = inputs_count_skipped(o->given, &counts);
    wbuf text = WBUF_INIT, line = WBUF_INIT;
    for (int f = 0; f < o->ninputs; f++) {
        winput *in = input_open(o->inputs[f]);
        if (!in) { /* reported by input_open; counted as the stages count it */
            stats_lost(&counts, INPUTS_UNREADABLE, 1);
            status = EXIT_FATAL;
            continue;
        }
        id_stream ids;
        id_stream_begin(&ids, in, "truncated_document");
        id_stream_step step;
        while ((step = id_stream_next(&ids, &counts)) == ID_STREAM_DOC) {
            counts.in++;
            size_t bad = tokenizer_first_unknown(t, ids.ids, ids.n);
            if (bad < ids.n) {
                warnf("%s: document %llu at offset %llu: id %" PRIu32 " (id %zu of %zu) is not in the vocabulary "
                      "of %s; document skipped",
                      input_name(in), (unsigned long long)ids.doc, (unsigned long long)ids.offset, ids.ids[bad],
                      bad + 1, ids.n, t->name);
                stats_fail(&counts, "unknown_id");
                continue;
            }
            counts.out++;
            stats_add(&counts, "tokens", (double)ids.n);
            buf_clear(&text);
            tokenizer_decode(t, ids.ids, ids.n, &text);
            buf_clear(&line);
            buf_puts(&line, "{\"text\":");
            json_put_string(&line, text.data ? text.data : "", text.len);
            buf_puts(&line, "}\n");
            output_write(out, line.data, line.len);
        }
        id_stream_end(&ids);
        if (step == ID_STREAM_BAD) status = EXIT_FATAL;
        if (input_errors(in)) status = EXIT_FATAL; /* damaged compression: reported by the reader, ids lost */
        counts.bytes_in += input_offset(in);
        input_close(in);
    }
    counts.bytes_out = output_bytes(out);
    output_close(out);
    if (o->stats_path) stats_write_json(&counts, "tokenize", o->stats_path);
    if (!o->quiet) stats_print_summary(&counts, winnow_prog);
    stats_free(&counts);
    buf_free(&text);
    buf_free(&line);
    return status;
}

/* --decode --ids LIST: the raw text of the ids in LIST, to -o (default stdout);
 * an id the vocabulary lacks is refused (exit 1) before anything is written. */
static int decode_id_list(const tokenizer *t, const char *list, const stage_opts *o)
{
    tok_ids ids = {0};
    wbuf text = WBUF_INIT;
    for (const char *p = list; *p;) {
        char *end;
        unsigned long long id = strtoull(p, &end, 10);
        if (end == p || id > VOCAB_MAX_ID) dief(EXIT_USAGE, "--ids: not a list of token ids: '%s'", list);
        ids_push(&ids, (uint32_t)id);
        p = end;
        while (*p == ',' || *p == ' ') p++;
    }
    size_t bad = tokenizer_first_unknown(t, ids.ids, ids.n);
    if (bad < ids.n)
        dief(EXIT_USAGE, "--ids: id %" PRIu32 " (id %zu of %zu) is not in the vocabulary of %s; nothing written",
             ids.ids[bad], bad + 1, ids.n, t->name);
    tokenizer_decode(t, ids.ids, ids.n, &text);
    woutput *out = output_open(o->output, o->zstd_level);
    output_write(out, text.data ? text.data : "", text.len);
    output_close(out);
    ids_free(&ids);
    buf_free(&text);
    return EXIT_OK;
}

int cmd_tokenize(int argc, char **argv)
{
    static const struct option longopts[] = {
        STAGE_COMMON_LONGOPTS,
        {"encoding", required_argument, 0, OPT_SETTING},
        {"vocab", required_argument, 0, OPT_SETTING},
        {"pattern", required_argument, 0, OPT_SETTING},
        {"allow-special", no_argument, 0, OPT_SETTING},
        {"eos", no_argument, 0, OPT_SETTING},
        {"no-eos", no_argument, 0, OPT_SETTING},
        {"bos", no_argument, 0, OPT_SETTING},
        {"no-bos", no_argument, 0, OPT_SETTING},
        {"shard-tokens", required_argument, 0, OPT_SETTING},
        {"split-docs", no_argument, 0, OPT_SETTING},
        {"level", required_argument, 0, OPT_SETTING},
        {"device", required_argument, 0, OPT_SETTING},
        {"format", required_argument, 0, OPT_FORMAT},
        {"decode", no_argument, 0, OPT_DECODE},
        {"ids", required_argument, 0, OPT_IDS},
        {0, 0, 0, 0},
    };
    stage_opts so;
    stage_opts_init(&so);
    tokenize_options o;
    tokenize_options_init(&o);
    tokenize_format format = TOKENIZE_JSONL;
    const char *id_list = NULL;
    bool decode = false, format_given = false;
    int opt, long_index = -1;
    optind = 1;
    while ((opt = getopt_long(argc, argv, STAGE_COMMON_SHORTOPTS, longopts, &long_index)) != -1) {
        char err[256];
        switch (opt) {
        case 'h': usage(stdout); return EXIT_OK;
        case OPT_SETTING:
            if (tokenize_options_set(&o, longopts[long_index].name, optarg, err, sizeof err) != 0) {
                fprintf(stderr, "winnow tokenize: %s\n\n", err);
                usage(stderr);
                return EXIT_USAGE;
            }
            break;
        case OPT_FORMAT:
            if (!strcmp(optarg, "jsonl")) format = TOKENIZE_JSONL;
            else if (!strcmp(optarg, "bin")) format = TOKENIZE_BIN;
            else if (!strcmp(optarg, "shards")) format = TOKENIZE_SHARDS;
            else {
                fprintf(stderr, "winnow tokenize: --format must be jsonl, bin or shards\n\n");
                usage(stderr);
                return EXIT_USAGE;
            }
            format_given = true;
            break;
        case OPT_DECODE: decode = true; break;
        case OPT_IDS: id_list = optarg; break;
        default:
            if (!stage_parse_common(&so, opt, optarg)) {
                usage(stderr);
                return EXIT_USAGE;
            }
        }
    }
    stage_take_inputs(&so, argc, argv);
    if (id_list && !decode) dief(EXIT_USAGE, "--ids goes with --decode");
    if (decode && format_given)
        dief(EXIT_USAGE, "--format does not go with --decode: it reads --format bin streams and writes JSON lines");
    char sha256[65];
    tokenizer tok;
    tokenize_load(&tok, &o, sha256);
    tokenize_options_defaults(&o, tok.eos_default, tok.bos_default);
    if (decode) {
        const char *refused = tokenizer_decode_refused(&tok);
        if (refused) dief(EXIT_USAGE, "--decode: %s: %s is not supported", tok.name, refused);
        if (so.rejects_path) dief(EXIT_USAGE, "--rejects does not go with --decode: decoding drops no document");
        if (id_list && so.stats_path) dief(EXIT_USAGE, "--stats goes with decoding streams, not with --ids");
        int rc = id_list ? decode_id_list(&tok, id_list, &so) : decode_streams(&tok, &so);
        tokenizer_free(&tok);
        return rc;
    }
    tokenize_check(&tok, &o);
    if (!format_given && output_is_dir(so.output)) format = TOKENIZE_SHARDS;
    shard_writer *writer = NULL;
    if (format == TOKENIZE_SHARDS) { /* the writer adds bos/eos and records that it did */
        if (!so.output || !strcmp(so.output, "-")) dief(EXIT_USAGE, "--format shards needs -o DIR");
        shard_writer_options wo;
        shard_writer_options_init(&wo);
        if (o.shard_tokens) wo.shard_tokens = o.shard_tokens;
        wo.split_docs = o.split_docs;
        if (o.shard_level_given) wo.zstd_level = o.shard_level;
        wo.tokenizer_name = tok.name;
        wo.vocab_sha256 = sha256;
        wo.vocab_size = tok.vocab.nids;
        wo.eos_id = tok.eos == VOCAB_NO_TOKEN ? -1 : (int64_t)tok.eos;
        wo.bos_id = tok.bos == VOCAB_NO_TOKEN ? -1 : (int64_t)tok.bos;
        wo.append_eos = o.eos;
        wo.prepend_bos = o.bos;
        wo.threads = so.threads;
        o.eos = o.bos = false;
        int refused = !shard_writer_options_valid(&wo)                  ? EXIT_USAGE
                      : !(writer = shard_writer_open(so.output, &wo)) ? EXIT_FATAL /* the directory cannot be used */
                                                                      : EXIT_OK;
        if (refused) {
            tokenizer_free(&tok);
            return refused;
        }
        so.output = NULL; /* the engine's own output stays empty */
    }
    tokenize_shard_sink sink = {writer, NULL};
    int rc = tokenize_run(&tok, &o, &so, format, &sink);
    if (writer) shard_writer_close(writer);
    tokenizer_free(&tok);
    return rc;
}
