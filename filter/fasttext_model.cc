// fasttext_model.cc - the C interface of fasttext_model.h over libfasttext
// (Debian's libfasttext-dev, fastText 0.9.2).
#include "filter/fasttext_model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <istream>
#include <memory>
#include <stdexcept>
#include <streambuf>
#include <string>
#include <vector>

#include <fasttext/fasttext.h>

// FastText with a loader for bytes already in memory: checkModel (the magic
// and version, which also sets the version loadModel reads) is protected.
class checked_fasttext : public fasttext::FastText {
  public:
    void load_from(std::istream &in)
    {
        if (!checkModel(in)) throw std::invalid_argument("wrong file format");
        loadModel(in);
    }
};

struct fasttext_model {
    checked_fasttext ft;
    std::shared_ptr<const fasttext::Dictionary> dict;
    std::vector<std::string> labels;
    fasttext_info info;
};

// A read-only stream buffer over bytes the caller owns (no copy).
class span_buf : public std::streambuf {
  public:
    void reset(char *p, size_t n) { setg(p, p, p + n); }
};

struct fasttext_scratch {
    std::string line;
    span_buf buf;
    std::istream in{&buf};
    std::vector<int32_t> words, labels;
    fasttext::Predictions predictions;
};

// Maps path read-only; NULL with a message in err.
static void *map_file(const char *path, size_t *n, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
        snprintf(err, errlen, "%s: not a regular, non-empty file", path);
        close(fd);
        return NULL;
    }
    *n = (size_t)st.st_size;
    void *p = mmap(NULL, *n, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    return p;
}

// The file is read once: fasttext_check() walks the mapping, then libfasttext
// reads the same bytes, so it never sees a file other than the one checked.
fasttext_model *fasttext_model_load(const char *path, char *err, size_t errlen)
{
    size_t n;
    void *bytes = map_file(path, &n, err, errlen);
    if (!bytes) return NULL;
    fasttext_info info;
    char why[256];
    if (!fasttext_check((const unsigned char *)bytes, n, &info, why, sizeof why)) {
        snprintf(err, errlen, "%s: %s", path, why);
        munmap(bytes, n);
        return NULL;
    }
    fasttext_model *m = new fasttext_model;
    m->info = info;
    try {
        span_buf buf;
        buf.reset((char *)bytes, n); // only read
        std::istream in(&buf);
        m->ft.load_from(in);
        m->dict = m->ft.getDictionary();
        for (int i = 0; i < m->dict->nlabels(); i++) m->labels.push_back(m->dict->getLabel(i));
    } catch (const std::exception &e) {
        snprintf(err, errlen, "%s: fastText cannot read it: %s", path, e.what());
        delete m;
        m = NULL;
    }
    munmap(bytes, n);
    return m;
}

void fasttext_model_free(fasttext_model *m) { delete m; }

const fasttext_info *fasttext_model_info(const fasttext_model *m) { return &m->info; }

int fasttext_model_nlabels(const fasttext_model *m) { return (int)m->labels.size(); }

const char *fasttext_model_label(const fasttext_model *m, int i) { return m->labels[(size_t)i].c_str(); }

int fasttext_model_find_label(const fasttext_model *m, const char *name)
{
    for (size_t i = 0; i < m->labels.size(); i++)
        if (m->labels[i] == name) return (int)i;
    return -1;
}

fasttext_scratch *fasttext_scratch_create(void) { return new fasttext_scratch; }

void fasttext_scratch_free(fasttext_scratch *s) { delete s; }

bool fasttext_model_predict(const fasttext_model *m, fasttext_scratch *s, const char *text, size_t n, int k,
                            float *probs)
{
    // the line predict-prob reads: the text with its newlines as spaces, then
    // the newline that ends it (read as the end-of-sentence token </s>)
    s->line.assign(text, n);
    for (char &c : s->line)
        if (c == '\n') c = ' ';
    s->line.push_back('\n');
    s->buf.reset(&s->line[0], s->line.size());
    s->in.clear();
    m->dict->getLine(s->in, s->words, s->labels);
    s->predictions.clear();
    int nlabels = (int)m->labels.size();
    for (int i = 0; i < nlabels; i++) probs[i] = 0.0f;
    try {
        m->ft.predict(k > 0 && k < nlabels ? k : nlabels, s->words, s->predictions, 0.0);
    } catch (const std::exception &) { // fastText's NaN check; fasttext_check's weight bound rules it out
        return false;
    }
    for (const auto &p : s->predictions) probs[p.second] = std::exp(p.first);
    return true;
}
