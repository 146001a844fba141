/*
 * tmpout.c - where ts_write (write.c) writes before an output is put in
 * place, so that a kill, a crash or a power loss leaves nothing behind.
 *
 * A file is written as an anonymous file in the target's folder (Linux
 * O_TMPFILE): it has no name until linkat(2) gives it its final one, and
 * vanishes with the last descriptor if the process dies first. ts_write
 * opens it again by /proc/self/fd/N (to verify and fsync it), which is
 * also the path linkat links. Replacing an existing file (overwrite) links
 * it under a temporary name first and renames that over the target (a
 * window of two system calls).
 *
 * Where that cannot be (a file system without O_TMPFILE, no /proc, folders,
 * npz through libzip, which writes by name), the output has a temporary
 * name of one pattern, ".BASE.tshape-PID-XXXXXX" (libzip adds its own
 * ".XXXXXX", and a replaced folder is moved aside as "....old"), and the
 * next ts_write into that folder removes those a killed run left:
 * ts__tmpout_sweep.
 */
#define _GNU_SOURCE /* O_TMPFILE, linkat */
#include "values.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PATTERN ".tshape-"

char *ts__tmpout_name(const char *dir, const char *base)
{
    size_t len = strlen(dir) + strlen(base) + 64;
    char *t = malloc(len);
    if (t)
        snprintf(t, len, "%s/.%s" PATTERN "%ld-XXXXXX", dir, base, (long)getpid());
    return t;
}

int ts__tmpout_file(const char *dir, const char *base, unsigned mode, char **path, int *keep)
{
    *path = NULL;
    *keep = -1;
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
    if (fd >= 0) {
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        int w = open(proc, O_WRONLY | O_CLOEXEC); /* the writer's own descriptor */
        if (w >= 0 && (*path = strdup(proc)) != NULL) {
            *keep = fd;
            return w;
        }
        if (w >= 0)
            close(w);
        close(fd); /* no /proc: the file is gone with it */
    }
#endif
    /* a named temporary */
    if (!(*path = ts__tmpout_name(dir, base))) {
        errno = ENOMEM;
        return -1;
    }
    int k = mkostemp(*path, O_CLOEXEC);
    if (k < 0 || fchmod(k, (mode_t)mode) != 0) { /* mkstemp's 0600 is for its own use */
        int e = errno;
        if (k >= 0) {
            close(k);
            unlink(*path);
        }
        errno = e;
        return -1;
    }
    return k;
}

int ts__tmpout_place(const char *path, int keep, const char *final, int overwrite)
{
    if (keep < 0) {
        /* a named temporary: rename, or link when final must not be replaced */
        if (overwrite)
            return rename(path, final);
        if (link(path, final) == 0)
            return unlink(path), 0;
        if (errno == EEXIST)
            return -1;
        struct stat sb; /* a file system without hard links */
        if (lstat(final, &sb) == 0) {
            errno = EEXIST;
            return -1;
        }
        return rename(path, final);
    }
    if (!overwrite)
        return linkat(AT_FDCWD, path, AT_FDCWD, final, AT_SYMLINK_FOLLOW);
    /* replacing: a name of ours first, then over final */
    char *dir = strdup(final), *slash = dir ? strrchr(dir, '/') : NULL;
    const char *base = slash ? slash + 1 : final;
    if (slash)
        *slash = '\0';
    char *tmp = dir ? ts__tmpout_name(slash ? (dir[0] ? dir : "/") : ".", base) : NULL;
    int rc = -1;
    for (int tries = 0; tmp && rc != 0 && tries < 100; tries++) {
        /* mkstemp's name generator, without the file */
        size_t n = strlen(tmp);
        for (int i = 0; i < 6; i++)
            tmp[n - 6 + i] = "abcdefghijklmnopqrstuvwxyz0123456789"[(unsigned)rand() % 36];
        rc = linkat(AT_FDCWD, path, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW);
        if (rc != 0 && errno != EEXIST)
            break;
    }
    if (rc == 0 && (rc = rename(tmp, final)) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
    }
    if (!tmp)
        errno = ENOMEM;
    free(tmp);
    free(dir);
    return rc;
}

void ts__tmpout_discard(const char *path, int keep)
{
    if (keep >= 0)
        close(keep); /* an anonymous file: gone with its last descriptor */
    else if (path)
        unlink(path);
}

/* The PID in a name of our pattern (".BASE.tshape-PID-XXXXXX[.XXXXXX|.old]"),
 * or 0 when the name is not one of ours. */
static long pid_of(const char *name)
{
    if (name[0] != '.')
        return 0;
    const char *p = NULL;
    for (const char *q = strstr(name, PATTERN); q; q = strstr(q + 1, PATTERN))
        p = q;
    if (!p)
        return 0;
    p += strlen(PATTERN);
    char *end;
    long pid = strtol(p, &end, 10);
    if (pid <= 0 || end == p || *end != '-' || strlen(end + 1) < 6)
        return 0;
    const char *rest = end + 1 + 6;
    if (*rest && strcmp(rest, ".old") != 0 && !(rest[0] == '.' && strlen(rest) == 7))
        return 0;
    return pid;
}

/* Removes a folder of ours and what it holds (files, and folders of files). */
static void remove_ours(int dfd, const char *name, int depth)
{
    if (unlinkat(dfd, name, 0) == 0 || depth > 8)
        return;
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            remove_ours(dirfd(d), e->d_name, depth + 1);
    closedir(d);
    unlinkat(dfd, name, AT_REMOVEDIR);
}

int ts__tmpout_sweep(const char *dir, const struct timespec *since)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        long pid = pid_of(e->d_name);
        struct stat sb;
        if (!pid || fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        /* ours: this user's, from before this run, of a process that is gone */
        int older = sb.st_mtim.tv_sec < since->tv_sec ||
                    (sb.st_mtim.tv_sec == since->tv_sec && sb.st_mtim.tv_nsec < since->tv_nsec);
        if (sb.st_uid != geteuid() || !older || pid == (long)getpid() ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (S_ISDIR(sb.st_mode))
            remove_ours(dirfd(d), e->d_name, 0);
        else if (S_ISREG(sb.st_mode))
            unlinkat(dirfd(d), e->d_name, 0);
        else
            continue;
        removed++;
    }
    closedir(d);
    return removed;
}
