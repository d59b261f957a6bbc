// hf_json_edit.js - the edits the variant lists (tests/data/hf/*variants.tsv)
// make to a tokenizer.json, shared by the scripts that record HF's ids for
// them: "a.b.c=JSON" sets a value, "+a.b=JSON" appends to a list, "-a.b"
// removes a member.
function apply(root, edit) {
  if (edit.startsWith('-')) {
    const parts = edit.slice(1).split('.');
    let o = root;
    for (const p of parts.slice(0, -1)) o = o[p];
    delete o[parts[parts.length - 1]];
    return;
  }
  const eq = edit.indexOf('=');
  let key = edit.slice(0, eq);
  const value = JSON.parse(edit.slice(eq + 1));
  const append = key.startsWith('+');
  if (append) key = key.slice(1);
  const parts = key.split('.');
  let o = root;
  for (const p of parts.slice(0, -1)) o = o[p];
  const last = parts[parts.length - 1];
  if (append) o[last].push(value);
  else o[last] = value;
}

module.exports = { apply };
