// simdjson_lines - the same hot path with Debian's simdjson (ondemand), for
// choosing the document-stream parser by measurement: read each line, parse
// it, get text and id unescaped. usage: simdjson_lines FILE.jsonl
#include <simdjson.h>

#include <chrono>
#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 2) return 1;
    auto t0 = std::chrono::steady_clock::now();
    simdjson::padded_string data;
    if (simdjson::padded_string::load(argv[1]).get(data)) return 2;
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document_stream docs;
    if (parser.iterate_many(data, 1 << 24).get(docs)) return 3;
    size_t chars = 0, bad = 0;
    for (auto doc : docs) {
        std::string_view text, id;
        simdjson::ondemand::object obj;
        if (doc.get_object().get(obj)) { bad++; continue; }
        for (auto field : obj) {
            std::string_view key;
            if (field.unescaped_key().get(key)) { bad++; break; }
            if (key == "text") { if (!field.value().get_string().get(text)) chars += text.size(); }
            else if (key == "id") { if (!field.value().get_string().get(id)) chars += id.size(); }
        }
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%.1f\n", (double)data.size() / 1e6 / secs);
    return bad ? 4 : (chars ? 0 : 5);
}
