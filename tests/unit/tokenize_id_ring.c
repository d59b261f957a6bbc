/* tokenize_id_ring.c - the id ring (tokenize/id_ring.h) that --format bin's
 * ids wait in between the GPU and the writer: every run it hands out lies
 * inside the buffer and overlaps no run not yet given back (checked cell
 * by cell over 200,000 random takes and give-backs, runs that must skip
 * the buffer's end included), each where the one before ended; once all is given back any run up to the
 * whole buffer fits; a full ring refuses until room is given back, and
 * giving back an older mark changes nothing. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "tokenize/id_ring.h"

#define CAP 1000
#define STEPS 200000
#define LIVE_MAX 64

typedef struct {
    size_t at, n;
    uint64_t end;
} live_run;

int main(void)
{
    uint32_t mem[CAP];
    unsigned char used[CAP] = {0};
    id_ring r;
    id_ring_init(&r, mem, CAP);
    uint64_t end = 0;
    ok(id_ring_take(&r, CAP + 1, &end) == NULL, "a run longer than the ring is refused");
    uint32_t *all = id_ring_take(&r, CAP, &end);
    ok(all == mem && end == CAP, "an empty ring gives the whole buffer");
    ok(id_ring_take(&r, 1, &end) == NULL, "a full ring refuses even one id");
    id_ring_give_back(&r, CAP);
    id_ring_give_back(&r, 10); /* older: nothing changes */
    ok(id_ring_given_back(&r) == CAP, "giving back an older mark changes nothing");
    uint32_t *p = id_ring_take(&r, 600, &end), *q = id_ring_take(&r, 600, &end);
    ok(p == mem && q == NULL, "a run that does not fit behind the live one is refused");
    id_ring_give_back(&r, end);
    q = id_ring_take(&r, 600, &end);
    ok(q == mem, "once given back, a run that cannot fit before the buffer's end starts at its beginning");

    id_ring_init(&r, mem, CAP);
    live_run live[LIVE_MAX];
    size_t nlive = 0, head = 0, taken = 0, refused = 0, skipped = 0, next_at = 0;
    bool disjoint = true, inside = true, fits_empty = true, in_order = true;
    srand(15);
    for (int step = 0; step < STEPS; step++) {
        if (nlive && (nlive == LIVE_MAX || rand() % 3 == 0)) { /* give back the oldest */
            live_run *o = &live[head];
            memset(used + o->at, 0, o->n);
            id_ring_give_back(&r, o->end);
            head = (head + 1) % LIVE_MAX;
            nlive--;
            continue;
        }
        size_t n = 1 + (size_t)rand() % (rand() % 4 ? 200 : CAP);
        uint32_t *got = id_ring_take(&r, n, &end);
        if (!got) {
            refused++;
            if (!nlive) fits_empty = false;
            continue;
        }
        size_t at = (size_t)(got - mem);
        if (got < mem || at + n > CAP) {
            inside = false;
            break;
        }
        for (size_t i = at; i < at + n; i++) disjoint &= !used[i], used[i] = 1;
        if (at != next_at) skipped++, in_order &= at == 0; /* after the last run, or the buffer's end skipped */
        next_at = (at + n) % CAP;
        live[(head + nlive) % LIVE_MAX] = (live_run){at, n, end};
        nlive++;
        taken += n;
    }
    ok(inside, "every run lies inside the buffer");
    ok(disjoint, "no run overlaps one not yet given back (%zu ids taken)", taken);
    ok(in_order, "each run starts where the one before ended, or at the buffer's start");
    ok(fits_empty, "with everything given back, every run up to the buffer's size fits");
    ok(refused > 0 && skipped > 0, "the ring was full at times (%zu refusals) and runs skipped its end (%zu)", refused,
       skipped);
    return done_testing();
}
