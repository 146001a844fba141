/*
 * suggest.c - "did you mean ...?" for a word that names nothing: the
 * candidates closest to it by edit distance, as git suggests a command
 * (help.c: "The most similar command is ..."). Used for commands, and for
 * array names (show).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Words longer than this are compared by the suffix rule only. */
#define WORD_MAX 256

/* The optimal string alignment distance (Levenshtein with transpositions
 * of neighbours, each edit costing 1) of a[0..n) and b[0..m), or limit + 1
 * as soon as every way is past limit. */
static size_t distance(const char *a, size_t n, const char *b, size_t m, size_t limit)
{
    if ((n > m ? n - m : m - n) > limit)
        return limit + 1;
    size_t rows[3][WORD_MAX + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t best = cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j - 1] + cost;
            if (prev[j] + 1 < d)
                d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < best)
                best = d;
        }
        if (best > limit)
            return limit + 1;
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m];
}

size_t cli_suggest(const char *word, cli_name_fn name_at, void *ctx, size_t n, size_t *best,
                   size_t max)
{
    size_t wl = strlen(word), found = 0, dist[CLI_SUGGEST_MAX];
    if (max > CLI_SUGGEST_MAX)
        max = CLI_SUGGEST_MAX;
    /* a third of the word, at least 2: "siz" -> size, "conv1.weigth" ->
     * conv1.weight, not "flat" -> "stack" */
    size_t limit = wl / 3 > 2 ? wl / 3 : 2;
    for (size_t i = 0; i < n && max > 0; i++) {
        const char *c = name_at(ctx, i);
        size_t cl = strlen(c), d;
        if (cl <= WORD_MAX && wl <= WORD_MAX)
            d = distance(word, wl, c, cl, limit);
        else
            d = limit + 1;
        /* a name the word ends (a prefix left out: "module.") or that ends
         * the word (a prefix too many) */
        /* a name the word begins (a command cut short: "flat") ranks
         * as one edit, ahead of names two edits away */
        if (wl >= 2 && cl > wl && strncmp(c, word, wl) == 0 && d > 1)
            d = 1;
        if (d > limit && wl >= 3 && cl > wl && strcmp(c + cl - wl, word) == 0 &&
            strchr("./:", c[cl - wl - 1]))
            d = limit;
        else if (d > limit && cl >= 3 && wl > cl && strcmp(word + wl - cl, c) == 0 &&
                 strchr("./:", word[wl - cl - 1]))
            d = limit;
        if (d > limit)
            continue;
        /* keep the best `max`, in order of distance, then of the list */
        size_t k = found < max ? found++ : max;
        if (k == max && d >= dist[max - 1])
            continue;
        if (k == max)
            k = max - 1;
        while (k > 0 && dist[k - 1] > d) {
            best[k] = best[k - 1];
            dist[k] = dist[k - 1];
            k--;
        }
        best[k] = i;
        dist[k] = d;
    }
    /* only those as close as the closest: git lists the best only */
    size_t keep = 0;
    while (keep < found && dist[keep] == dist[0])
        keep++;
    return keep;
}

const char *cli_suggest_text(const char *word, cli_name_fn name_at, void *ctx, size_t n,
                             char *buf, size_t cap)
{
    size_t best[CLI_SUGGEST_MAX];
    size_t k = cli_suggest(word, name_at, ctx, n, best, CLI_SUGGEST_MAX);
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < k && o < cap; i++) {
        char q[128];
        const char *c = name_at(ctx, best[i]);
        o += (size_t)snprintf(buf + o, cap - o, "%s'%s'",
                              i == 0 ? "; did you mean " : i + 1 == k ? " or " : ", ",
                              cli_quote(c, strlen(c), q, sizeof q));
    }
    if (k > 0 && o < cap)
        snprintf(buf + o, cap - o, "?");
    return buf;
}
