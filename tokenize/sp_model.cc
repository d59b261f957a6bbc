// sp_model.cc - the C interface of sp_model.h over libsentencepiece
// (Debian's libsentencepiece-dev, SentencePiece 0.1.97).
#include "tokenize/sp_model.h"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <sentencepiece_processor.h>

struct sp_model {
    sentencepiece::SentencePieceProcessor sp;
};

// Each thread's last result (the processor itself is shared read-only).
static thread_local std::vector<int> thread_ids;
static thread_local std::string thread_text;

static void set_error(char *err, size_t errlen, const char *what, const char *why)
{
    if (errlen) snprintf(err, errlen, "%s: %s", what, why);
}

sp_model *sp_model_load(const char *data, size_t n, char *err, size_t errlen)
{
    sp_model *m = nullptr;
    try {
        m = new sp_model;
        auto status = m->sp.LoadFromSerializedProto(absl::string_view(data, n));
        if (status.ok()) return m;
        set_error(err, errlen, "SentencePiece refuses the model", status.ToString().c_str());
    } catch (const std::exception &e) {
        set_error(err, errlen, "SentencePiece failed to load the model", e.what());
    }
    delete m;
    return nullptr;
}

void sp_model_free(sp_model *m)
{
    delete m;
}

int sp_model_size(const sp_model *m)
{
    return m->sp.GetPieceSize();
}

const char *sp_model_piece(const sp_model *m, int id, size_t *len)
{
    const std::string &piece = m->sp.IdToPiece(id);
    *len = piece.size();
    return piece.data();
}

bool sp_model_is_control(const sp_model *m, int id)
{
    return m->sp.IsControl(id);
}

int sp_model_bos(const sp_model *m)
{
    return m->sp.bos_id();
}

int sp_model_eos(const sp_model *m)
{
    return m->sp.eos_id();
}

long sp_model_encode(const sp_model *m, const char *s, size_t n, const int **ids, char *err, size_t errlen)
{
    try {
        thread_ids.clear();
        auto status = m->sp.Encode(absl::string_view(s ? s : "", n), &thread_ids);
        if (!status.ok()) {
            set_error(err, errlen, "SentencePiece cannot encode the text", status.ToString().c_str());
            return -1;
        }
    } catch (const std::exception &e) {
        set_error(err, errlen, "SentencePiece failed to encode the text", e.what());
        return -1;
    }
    *ids = thread_ids.data();
    return (long)thread_ids.size();
}

long sp_model_decode(const sp_model *m, const int *ids, size_t n, const char **text, char *err, size_t errlen)
{
    try {
        thread_text.clear();
        auto status = m->sp.Decode(std::vector<int>(ids, ids + n), &thread_text);
        if (!status.ok()) {
            set_error(err, errlen, "SentencePiece cannot decode the ids", status.ToString().c_str());
            return -1;
        }
    } catch (const std::exception &e) {
        set_error(err, errlen, "SentencePiece failed to decode the ids", e.what());
        return -1;
    }
    *text = thread_text.data();
    return (long)thread_text.size();
}
