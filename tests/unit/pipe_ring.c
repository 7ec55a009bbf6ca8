/*
 * The pipe ring (include/kiln_pipe.h) driven from plain C threads.
 *
 * First the single-threaded edges: an empty pipe refuses readers, a full one
 * writers, a reservation larger than the capacity or of zero packets fails, the
 * (KILN_PIPE_MAX_RESERVATIONS + 1)-th active counted reservation gets the null
 * id while uncounted ones still succeed, commits in reverse order publish
 * everything in reservation order, a bad index or id yields no packet, a double
 * commit is ignored, and a reservation held open while 2 * KILN_PIPE_MAX_RESERVATIONS
 * others come and go does not make them fail (it only delays their publication).
 *
 * Then the stress: `producers` threads write `packets` packets in all, each
 * tagged with its producer and its number there plus a check word, through
 * reservations of 1 to 8 packets, sometimes holding two reservations and
 * committing the second first; `consumers` threads read them back the same way.
 * Every packet must arrive exactly once, intact, and each consumer must see each
 * producer's packets in increasing order (a producer's reservations are ordered
 * as in its program, and one consumer reads in ring order).
 *
 * Usage: pipe_ring [packets [capacity [producers consumers]]]
 */
#include "kiln_pipe.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct packet {
    uint64_t value; /* producer << 40 | number */
    uint64_t check; /* ~value */
};

static struct kiln_pipe *pipe_new(uint32_t packet_size, uint32_t max_packets)
{
    size_t bytes = kiln_pipe_bytes(packet_size, max_packets);
    struct kiln_pipe *p = aligned_alloc(128, (bytes + 127) / 128 * 128);
    CHECK(p);
    kiln_pipe_init(p, packet_size, max_packets);
    return p;
}

static void edges(void)
{
    struct kiln_pipe *p = pipe_new(sizeof(uint32_t), 8);

    CHECK(kiln_pipe_num_packets(p) == 0);
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_READ, 1, 1) == KILN_PIPE_NULL_ID);
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_WRITE, 0, 1) == KILN_PIPE_NULL_ID);
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_WRITE, 9, 1) == KILN_PIPE_NULL_ID);

    /* Three reservations committed last to first: nothing visible until the first. */
    uint64_t w[3];
    for (uint32_t i = 0; i < 3; i++) {
        w[i] = kiln_pipe_reserve(p, KILN_PIPE_WRITE, i + 1, 1);
        CHECK(kiln_pipe_id_valid(w[i]));
        for (uint32_t j = 0; j < i + 1; j++) {
            uint32_t v = i * 10 + j;
            unsigned char *slot = kiln_pipe_packet(p, w[i], j);
            CHECK(slot);
            memcpy(slot, &v, sizeof(v));
        }
        CHECK(kiln_pipe_packet(p, w[i], i + 1) == NULL);
    }
    /* 6 packets taken: 2 left, so 3 more do not fit. */
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_WRITE, 3, 1) == KILN_PIPE_NULL_ID);
    kiln_pipe_commit(p, KILN_PIPE_WRITE, w[2]);
    kiln_pipe_commit(p, KILN_PIPE_WRITE, w[1]);
    CHECK(kiln_pipe_num_packets(p) == 0);
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_READ, 1, 1) == KILN_PIPE_NULL_ID);
    kiln_pipe_commit(p, KILN_PIPE_WRITE, w[0]);
    kiln_pipe_commit(p, KILN_PIPE_WRITE, w[0]); /* twice: ignored */
    CHECK(kiln_pipe_num_packets(p) == 6);

    /* Fill to the brim. */
    uint64_t f = kiln_pipe_reserve(p, KILN_PIPE_WRITE, 2, 1);
    CHECK(kiln_pipe_id_valid(f));
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 1) == KILN_PIPE_NULL_ID);
    for (uint32_t j = 0; j < 2; j++) {
        uint32_t v = 100 + j;
        memcpy(kiln_pipe_packet(p, f, j), &v, sizeof(v));
    }
    kiln_pipe_commit(p, KILN_PIPE_WRITE, f);
    CHECK(kiln_pipe_num_packets(p) == 8);

    /* Read back in reservation order: 0, 10 11, 20 21 22, 100 101. */
    static const uint32_t want[8] = {0, 10, 11, 20, 21, 22, 100, 101};
    uint64_t r = kiln_pipe_reserve(p, KILN_PIPE_READ, 8, 1);
    CHECK(kiln_pipe_id_valid(r));
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_READ, 1, 1) == KILN_PIPE_NULL_ID);
    for (uint32_t j = 0; j < 8; j++) {
        uint32_t v;
        memcpy(&v, kiln_pipe_packet(p, r, j), sizeof(v));
        CHECK(v == want[j]);
    }
    /* Not yet committed: the writers still have no room. */
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 1) == KILN_PIPE_NULL_ID);
    kiln_pipe_commit(p, KILN_PIPE_READ, r);
    CHECK(kiln_pipe_num_packets(p) == 0);
    CHECK(kiln_pipe_packet(p, KILN_PIPE_NULL_ID, 0) == NULL);
    kiln_pipe_commit(p, KILN_PIPE_READ, KILN_PIPE_NULL_ID); /* ignored */
    free(p);

    /* KILN_PIPE_MAX_RESERVATIONS active counted reservations, then the null id. */
    const uint32_t R = KILN_PIPE_MAX_RESERVATIONS;
    p = pipe_new(1, 4 * R);
    uint64_t *ids = malloc(R * sizeof(*ids));
    CHECK(ids);
    for (uint32_t i = 0; i < R; i++) {
        ids[i] = kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 1);
        CHECK(kiln_pipe_id_valid(ids[i]));
        *kiln_pipe_packet(p, ids[i], 0) = (unsigned char)i;
    }
    CHECK(kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 1) == KILN_PIPE_NULL_ID);
    /* A one-packet read_pipe/write_pipe is not counted. */
    uint64_t extra = kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 0);
    CHECK(kiln_pipe_id_valid(extra));
    *kiln_pipe_packet(p, extra, 0) = 0xee;
    kiln_pipe_commit(p, KILN_PIPE_WRITE, extra);
    for (uint32_t i = R; i-- > 0;)
        kiln_pipe_commit(p, KILN_PIPE_WRITE, ids[i]);
    CHECK(kiln_pipe_num_packets(p) == R + 1);
    for (uint32_t i = 0; i <= R; i++) {
        uint64_t id = kiln_pipe_reserve(p, KILN_PIPE_READ, 1, 1);
        CHECK(kiln_pipe_id_valid(id));
        CHECK(*kiln_pipe_packet(p, id, 0) == (i < R ? (unsigned char)i : 0xee));
        kiln_pipe_commit(p, KILN_PIPE_READ, id);
    }
    CHECK(kiln_pipe_num_packets(p) == 0);

    /* A reservation held open (its owner stalled) while 2R others come and go:
     * they all succeed and wait behind it, and its commit publishes them all. */
    uint64_t held = kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 1);
    CHECK(kiln_pipe_id_valid(held));
    for (uint32_t i = 0; i < 2 * R; i++) {
        uint64_t id = kiln_pipe_reserve(p, KILN_PIPE_WRITE, 1, 1);
        CHECK(kiln_pipe_id_valid(id));
        kiln_pipe_commit(p, KILN_PIPE_WRITE, id);
    }
    CHECK(kiln_pipe_num_packets(p) == 0);
    kiln_pipe_commit(p, KILN_PIPE_WRITE, held);
    CHECK(kiln_pipe_num_packets(p) == 2 * R + 1);
    free(ids);
    free(p);
}

/* ---- the stress ----------------------------------------------------------------- */

struct stress {
    struct kiln_pipe *pipe;
    uint64_t packets;   /* in all */
    unsigned producers; /* producer i writes numbers i, i + producers, ... below packets */
    atomic_ulong consumed;
    atomic_uchar *seen; /* by packet number */
    atomic_int failed;
};

struct worker {
    struct stress *s;
    unsigned id;
    pthread_t thread;
};

static uint32_t rnd(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 11);
}

static uint32_t batch(uint64_t *state, uint32_t capacity)
{
    uint32_t n = 1 + rnd(state) % 8;
    return n < capacity ? n : capacity;
}

static void *produce(void *arg)
{
    struct worker *w = arg;
    struct stress *s = w->s;
    uint64_t state = 0x9e3779b97f4a7c15ull * (w->id + 1);
    uint64_t next = w->id; /* my next packet number */
    uint32_t cap = s->pipe->max_packets;

    while (next < s->packets) {
        /* Sometimes two reservations at once, the second committed first. */
        int two = (rnd(&state) & 3) == 0;
        uint64_t id[2] = {KILN_PIPE_NULL_ID, KILN_PIPE_NULL_ID};
        uint32_t n[2] = {0, 0};
        for (int k = 0; k < 1 + two; k++) {
            n[k] = batch(&state, cap);
            id[k] = kiln_pipe_reserve(s->pipe, KILN_PIPE_WRITE, n[k], (int)(state & 1));
            if (!kiln_pipe_id_valid(id[k]))
                break;
        }
        for (int k = 0; k < 2; k++) {
            if (!kiln_pipe_id_valid(id[k]))
                continue;
            for (uint32_t j = 0; j < n[k]; j++) {
                /* Past my last packet: a filler the consumers skip. */
                uint64_t v = next < s->packets ? ((uint64_t)w->id << 40) | next : UINT64_MAX;
                struct packet pk = {v, ~v};
                memcpy(kiln_pipe_packet(s->pipe, id[k], j), &pk, sizeof(pk));
                if (next < s->packets)
                    next += s->producers;
            }
        }
        for (int k = 2; k-- > 0;)
            kiln_pipe_commit(s->pipe, KILN_PIPE_WRITE, id[k]);
        if (!kiln_pipe_id_valid(id[0]))
            sched_yield();
    }
    return NULL;
}

static void consume_one(struct stress *s, const unsigned char *slot, uint64_t *last)
{
    struct packet pk;
    memcpy(&pk, slot, sizeof(pk));
    if (pk.check != ~pk.value) {
        fprintf(stderr, "torn packet %llx/%llx\n", (unsigned long long)pk.value,
                (unsigned long long)pk.check);
        atomic_store(&s->failed, 1);
        return;
    }
    if (pk.value == UINT64_MAX)
        return;
    unsigned prod = (unsigned)(pk.value >> 40);
    uint64_t num = pk.value & ((1ull << 40) - 1);
    if (prod >= s->producers || num >= s->packets || num % s->producers != prod) {
        fprintf(stderr, "bad packet %llx\n", (unsigned long long)pk.value);
        atomic_store(&s->failed, 1);
        return;
    }
    if (last[prod] != UINT64_MAX && num <= last[prod]) {
        fprintf(stderr, "producer %u: packet %llu after %llu\n", prod, (unsigned long long)num,
                (unsigned long long)last[prod]);
        atomic_store(&s->failed, 1);
    }
    last[prod] = num;
    if (atomic_fetch_add_explicit(&s->seen[num], 1, memory_order_relaxed) != 0) {
        fprintf(stderr, "packet %llu twice\n", (unsigned long long)num);
        atomic_store(&s->failed, 1);
    }
    atomic_fetch_add_explicit(&s->consumed, 1, memory_order_relaxed);
}

static void *consume(void *arg)
{
    struct worker *w = arg;
    struct stress *s = w->s;
    uint64_t state = 0x2545f4914f6cdd1dull * (w->id + 1);
    uint32_t cap = s->pipe->max_packets;
    uint64_t *last = malloc(s->producers * sizeof(*last));
    CHECK(last);
    for (unsigned i = 0; i < s->producers; i++)
        last[i] = UINT64_MAX;

    while (atomic_load_explicit(&s->consumed, memory_order_relaxed) < s->packets &&
           !atomic_load(&s->failed)) {
        int two = (rnd(&state) & 3) == 0;
        uint64_t id[2] = {KILN_PIPE_NULL_ID, KILN_PIPE_NULL_ID};
        uint32_t n[2] = {0, 0};
        for (int k = 0; k < 1 + two; k++) {
            /* Try a batch, then one packet, as a kernel reading what is there would. */
            n[k] = batch(&state, cap);
            id[k] = kiln_pipe_reserve(s->pipe, KILN_PIPE_READ, n[k], (int)(state & 1));
            if (!kiln_pipe_id_valid(id[k])) {
                n[k] = 1;
                id[k] = kiln_pipe_reserve(s->pipe, KILN_PIPE_READ, 1, 1);
            }
            if (!kiln_pipe_id_valid(id[k]))
                break;
        }
        for (int k = 0; k < 2; k++)
            for (uint32_t j = 0; kiln_pipe_id_valid(id[k]) && j < n[k]; j++)
                consume_one(s, kiln_pipe_packet(s->pipe, id[k], j), last);
        for (int k = 2; k-- > 0;)
            kiln_pipe_commit(s->pipe, KILN_PIPE_READ, id[k]);
        if (!kiln_pipe_id_valid(id[0]))
            sched_yield();
    }
    free(last);
    return NULL;
}

static void stress(uint64_t packets, uint32_t capacity, unsigned producers, unsigned consumers)
{
    struct stress s = {.packets = packets, .producers = producers};
    s.pipe = pipe_new(sizeof(struct packet), capacity);
    s.seen = calloc(packets, sizeof(*s.seen));
    struct worker *w = calloc(producers + consumers, sizeof(*w));
    CHECK(s.seen && w);
    atomic_init(&s.consumed, 0);
    atomic_init(&s.failed, 0);

    for (unsigned i = 0; i < producers + consumers; i++) {
        w[i].s = &s;
        w[i].id = i < producers ? i : i - producers;
        CHECK(pthread_create(&w[i].thread, NULL, i < producers ? produce : consume, &w[i]) == 0);
    }
    for (unsigned i = 0; i < producers + consumers; i++)
        CHECK(pthread_join(w[i].thread, NULL) == 0);
    CHECK(!atomic_load(&s.failed));
    CHECK(atomic_load(&s.consumed) == packets);
    for (uint64_t i = 0; i < packets; i++)
        if (atomic_load_explicit(&s.seen[i], memory_order_relaxed) != 1) {
            fprintf(stderr, "packet %llu seen %u times\n", (unsigned long long)i,
                    atomic_load(&s.seen[i]));
            exit(1);
        }
    /* Fillers may remain; nothing else. */
    while (kiln_pipe_num_packets(s.pipe) > 0) {
        uint64_t id = kiln_pipe_reserve(s.pipe, KILN_PIPE_READ, 1, 1);
        CHECK(kiln_pipe_id_valid(id));
        struct packet pk;
        memcpy(&pk, kiln_pipe_packet(s.pipe, id, 0), sizeof(pk));
        CHECK(pk.value == UINT64_MAX && pk.check == 0);
        kiln_pipe_commit(s.pipe, KILN_PIPE_READ, id);
    }
    printf("%llu packets through a ring of %u, %u producers, %u consumers: each once\n",
           (unsigned long long)packets, capacity, producers, consumers);
    free(w);
    free(s.seen);
    free(s.pipe);
}

int main(int argc, char **argv)
{
    uint64_t packets = argc > 1 ? strtoull(argv[1], NULL, 0) : 10000000;
    uint32_t capacity = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 0) : 64;
    unsigned producers = argc > 4 ? (unsigned)atoi(argv[3]) : 4;
    unsigned consumers = argc > 4 ? (unsigned)atoi(argv[4]) : 4;

    edges();
    stress(packets, capacity, producers, consumers);
    /* A one-packet ring: every reservation is one packet and most attempts fail. */
    stress(packets / 100 + 1, 1, 2, 2);
    return 0;
}
