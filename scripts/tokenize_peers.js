// tokenize_peers.js - single-thread throughput of the npm peers on a JSONL
// corpus, for bench/tokenize.sh:
//   node tokenize_peers.js NODE_MODULES_DIR tiktoken ENCODING FILE.jsonl
//   node tokenize_peers.js NODE_MODULES_DIR tokenizers TOKENIZER.json FILE.jsonl
// Prints: MB/s seconds bytes tokens (text bytes, encode time only).
"use strict";
const fs = require("fs");
const path = require("path");
const [modules, peer, what, file] = process.argv.slice(2);
const texts = fs.readFileSync(file, "utf8").split("\n").filter((l) => l).map((l) => JSON.parse(l).text);
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);

async function main() {
  let tokens = 0, t0;
  if (peer === "tiktoken") {
    const { get_encoding } = require(path.join(modules, "tiktoken"));
    const enc = get_encoding(what);
    t0 = process.hrtime.bigint();
    for (const t of texts) tokens += enc.encode_ordinary(t).length;
  } else {
    const { Tokenizer } = require(path.join(modules, "tokenizers"));
    const tok = Tokenizer.fromFile(what);
    t0 = process.hrtime.bigint();
    for (const t of texts) tokens += (await tok.encode(t, null, { addSpecialTokens: false })).getIds().length;
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log((bytes / 1e6 / secs).toFixed(1), secs.toFixed(2), bytes, tokens);
}
main();
