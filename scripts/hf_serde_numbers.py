#!/usr/bin/env python3
"""hf_serde_numbers.py - the doubles Hugging Face tokenizers reads JSON numbers as
(serde_json without float_roundtrip: not always the nearest double), for
tests/data/hf/serde_numbers.tsv (tests/unit/tokenize_hf_json.c reads it).

  literals OUT.txt      writes the number literals to check, one a line: awkward
                        ones by hand, then seeded random ones of every length
  hf LITERALS.txt       (where Python tokenizers is) reads them as the scores of a
                        Unigram tokenizer.json, writes back what HF holds (to_str
                        writes each double's shortest round-trip form): per line
                        the literal, a tab, the double's bits in hex"""
import json, random, struct, sys


def literals():
    out = ["0", "-0", "1", "-1", "0.5", "-3.1600964069366455", "-9.517477035522461", "-9.13558292388916",
           "-11.703954696655273", "-10.553718566894531", "1e0", "1E+2", "-2.5e-3", "123456789012345678901234567890",
           "18446744073709551615", "18446744073709551616", "1844674407370955161.5", "18446744073709551615.0",
           "1.8446744073709551615", "0.000000000000000000000000000001", "9007199254740993", "-9007199254740993.0",
           "1.7976931348623157e308", "2.2250738585072014e-308", "4.9e-324", "5e-324", "2e-324", "1e-400",
           "-1e-400", "123.456e-310", "0.1e-330", "99999999999999999999e-20", "1e22", "1e23", "-1e-22",
           "1e-23", "0.30000000000000004", "2.718281828459045235360287", "-0.0000001", "7e-10", "1e308"]
    rng = random.Random(20261128)
    for _ in range(4000):
        digits = rng.randint(1, 24)
        mant = "".join(rng.choice("0123456789") for _ in range(digits)).lstrip("0") or "0"
        point = rng.randint(0, len(mant))
        lit = mant[:point] or "0"
        if point < len(mant):
            lit += "." + mant[point:]
        if rng.random() < 0.3:
            lit += "e" + rng.choice(["", "+", "-"]) + str(rng.randint(0, 40))
        out.append(("-" if rng.random() < 0.7 else "") + lit)
    return out


def hf(path):
    from tokenizers import Tokenizer
    lits = [line.strip() for line in open(path) if line.strip()]
    vocab = ",".join('["p%d",%s]' % (i, lit) for i, lit in enumerate(lits))
    text = ('{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,'
            '"pre_tokenizer":null,"post_processor":null,"decoder":null,'
            '"model":{"type":"Unigram","unk_id":0,"vocab":[%s],"byte_fallback":false}}' % vocab)
    held = json.loads(Tokenizer.from_str(text).to_str())["model"]["vocab"]
    for lit, (_, score) in zip(lits, held):
        print("%s\t%016x" % (lit, struct.unpack("<Q", struct.pack("<d", float(score)))[0]))


if __name__ == "__main__":
    if sys.argv[1] == "literals":
        open(sys.argv[2], "w").write("\n".join(literals()) + "\n")
    else:
        hf(sys.argv[2])
