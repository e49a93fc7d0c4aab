/* A tight, stand-alone perft of Abapa (the international Oware tournament rules), the reference
 * that Griot's rules engine is measured against (bench/perft_ref.py).
 *
 * The rules are Griot's `abapa` rule file (crates/griot-core/rules/abapa.toml, docs/rules/
 * awale-collection.md): two rows of six holes, South's holes 0-5 and North's 6-11, sown
 * counter-clockwise (index + 1 modulo 12), the origin skipped on a lap of 12 or more; the last
 * seed on the opponent's row making 2 or 3 captures that hole and the holes before it on that row
 * while they hold 2 or 3; a capture that would take every seed of the opponent's row (grand slam)
 * takes nothing; when the opponent's row is empty only moves that give it seeds are legal, and a
 * player without a legal move ends the game; a store above 24 ends the game; so does turn 2000
 * (Griot's default turn limit). A perft counts move sequences of the given length, and every leaf
 * is made (copied, sown and captured), as Griot's `perft` does.
 *
 *     cc -O3 -march=native -o abapa bench/perft_ref/abapa.c
 *     ./abapa DEPTH ["4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0"]
 *
 * prints seconds, leaves and the position, tab-separated, like Griot's `perft_speed` example.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    uint8_t pits[12];
    uint8_t stores[2];
    uint8_t side; /* 0 South, 1 North */
    uint16_t turns;
} Pos;

/* NEXT[h + k] is hole (h + k) mod 12 for k up to 23. */
static const uint8_t NEXT[24] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

/* Keeps a made leaf from being optimised away (the compiler must assume the memory is read). */
#define KEEP(p) __asm__ volatile("" : : "r"(p) : "memory")

static inline int row_empty(const uint8_t *pits, int side) {
    const uint8_t *r = pits + 6 * side;
    return (r[0] | r[1] | r[2] | r[3] | r[4] | r[5]) == 0;
}

/* Sows hole h of p for the side to move and captures; the turn passes. */
static inline void play(Pos *p, int h) {
    uint8_t *b = p->pits;
    int seeds = b[h];
    int last;
    b[h] = 0;
    if (seeds < 12) {
        for (int k = 1; k <= seeds; k++) b[NEXT[h + k]]++;
        last = NEXT[h + seeds];
    } else {
        /* Whole laps of the 11 other holes, then the rest. */
        int laps = seeds / 11, rest = seeds % 11;
        for (int i = 0; i < 12; i++) b[i] += laps;
        b[h] -= laps;
        for (int k = 1; k <= rest; k++) b[NEXT[h + k]]++;
        last = rest ? NEXT[h + rest] : NEXT[h + 11];
    }
    int me = p->side, opp_lo = 6 * (1 - me);
    if (last >= opp_lo && last < opp_lo + 6 && (b[last] == 2 || b[last] == 3)) {
        int taken = 0, h2 = last;
        while (h2 >= opp_lo && (b[h2] == 2 || b[h2] == 3)) taken += b[h2--];
        int opp_total = 0;
        for (int i = opp_lo; i < opp_lo + 6; i++) opp_total += b[i];
        if (taken < opp_total) { /* not a grand slam */
            for (int i = h2 + 1; i <= last; i++) b[i] = 0;
            p->stores[me] += taken;
        }
    }
    p->side = 1 - me;
    p->turns++;
}

static uint64_t perft(const Pos *p, int depth) {
    if (p->stores[0] > 24 || p->stores[1] > 24 || p->turns >= 2000) return 0;
    int me = p->side, lo = 6 * me;
    uint64_t total = 0;
    if (!row_empty(p->pits, 1 - me)) {
        /* Every non-empty hole of the mover's row is legal. */
        for (int h = lo; h < lo + 6; h++) {
            if (!p->pits[h]) continue;
            Pos c = *p;
            play(&c, h);
            KEEP(&c);
            total += depth == 1 ? 1 : perft(&c, depth - 1);
        }
    } else {
        /* Must feed: only moves after which the opponent's row holds seeds. */
        for (int h = lo; h < lo + 6; h++) {
            if (!p->pits[h]) continue;
            Pos c = *p;
            play(&c, h);
            KEEP(&c);
            if (row_empty(c.pits, 1 - me)) continue;
            total += depth == 1 ? 1 : perft(&c, depth - 1);
        }
    }
    return total;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DEPTH [\"a,b,c,d,e,f/A,B,C,D,E,F s-n S|N turns\"]\n", argv[0]);
        return 2;
    }
    int depth = atoi(argv[1]);
    const char *text = argc > 2 ? argv[2] : "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0";
    unsigned v[12], s0, s1, turns;
    char side;
    if (sscanf(text, "%u,%u,%u,%u,%u,%u/%u,%u,%u,%u,%u,%u %u-%u %c %u", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &s0, &s1, &side, &turns) != 16 ||
        (side != 'S' && side != 'N')) {
        fprintf(stderr, "not a position: %s\n", text);
        return 2;
    }
    Pos p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < 12; i++) p.pits[i] = (uint8_t)v[i];
    p.stores[0] = (uint8_t)s0;
    p.stores[1] = (uint8_t)s1;
    p.side = side == 'N';
    p.turns = (uint16_t)turns;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t leaves = depth == 0 ? 1 : perft(&p, depth);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%.4f\t%llu\t%s\n", secs, (unsigned long long)leaves, text);
    return 0;
}
