/**
 * AgentExec's limits and defaults, defined once with their units in their names. Tool
 * descriptions and docs/tools.md quote these constants, so the text never disagrees with the code.
 */

/** Entries `list` shows for one folder before it stops and says how many it left out. */
export const LIST_MAX_ENTRIES = 1000

/**
 * Entries `list` holds at once while it reads a folder (see folder-window.ts): a window within the
 * first this many sorted entries takes one pass over the folder, one further on two or more.
 */
export const LIST_MAX_HELD_NAMES = 10_000

/** Names `list` samples from a folder of more than `LIST_MAX_HELD_NAMES` entries, to estimate where a window further on begins. */
export const LIST_SAMPLE_NAMES = 8192

/** A folder whose size (`st_size`) is at most this many bytes is listed in one call, not in batches (folder-window.ts). */
export const LIST_SMALL_FOLDER_BYTES = 64 * 1024

/** Entries `list` reads from a folder per system call; the server answers other calls between batches. */
export const LIST_READ_BATCH_ENTRIES = 1024

/** Lines `read` shows when the caller gives no `limit`. */
export const READ_DEFAULT_LIMIT_LINES = 2000
/** The largest `limit` `read` accepts, in lines. */
export const READ_MAX_LIMIT_LINES = 10_000
/** Characters (Unicode code points) of one line `read` shows before clipping the rest. */
export const READ_MAX_LINE_CHARS = 2000
/** Characters one `read` answer holds at most; it stops at a whole line and says where to go on. */
export const READ_MAX_ANSWER_CHARS = 100_000
/**
 * Bytes `read` scans past the shown part of a clipped last line to count what it cut; beyond
 * that the marker says "at least" rather than reading on through a giant line.
 */
export const READ_MAX_CLIPPED_SCAN_BYTES = 1024 * 1024
/**
 * With a negative offset (lines from the end), `read` also counts the lines before the window,
 * to number lines from the start, when they take at most this many bytes; past that it numbers
 * them from the end rather than read the whole file.
 */
export const READ_TAIL_COUNT_MAX_BYTES = 8 * 1024 * 1024
/** Bytes `read` asks the kernel for at a time while streaming a file. */
export const READ_CHUNK_BYTES = 64 * 1024
/** Leading bytes checked for a NUL byte to tell a binary file from text (git checks 8000). */
export const BINARY_SNIFF_BYTES = 8192

/**
 * The largest image file `read` returns as image content, in bytes: 3.75 MiB, whose base64 form is
 * 5 MiB, the most Claude's API accepts for one image (it counts the base64 data). OpenAI's models,
 * and so Codex, accept larger images; the smaller limit is the one every host takes.
 */
export const READ_MAX_IMAGE_BYTES = (5 * 1024 * 1024 * 3) / 4
/** The widest and tallest image `read` returns, in pixels: Claude's API refuses images larger than this on either side. */
export const READ_MAX_IMAGE_SIDE_PX = 8000

/**
 * Content up to this many bytes is read and written by `edit` with synchronous calls on the main
 * thread: a page-cache copy of this size takes well under a millisecond, less than the round trips
 * to the thread pool it saves. Larger content, and every flush to disk, goes through the pool.
 */
export const EDIT_SYNC_IO_MAX_BYTES = 1024 * 1024
/** The largest file `edit` changes, in bytes (the file is read whole, changed and rewritten). */
export const EDIT_MAX_FILE_BYTES = 64 * 1024 * 1024
/**
 * Characters (UTF-16 units) of a file that a failed `edit` looks through for a place where
 * old_text would match if whitespace were ignored; larger files get a plain "not found".
 */
export const EDIT_NEAR_MATCH_MAX_CHARS = 8 * 1024 * 1024
/** Characters of unified diff an `edit` answer shows before it cuts the diff with a note. */
export const EDIT_MAX_DIFF_CHARS = 20_000
/**
 * Operations (Add, Delete, Update File) one `edit` patch may hold. Each holds its file's lock
 * until the whole patch is committed, so a patch stays a unit a reader can follow.
 */
export const EDIT_PATCH_MAX_OPERATIONS = 200
/**
 * Bytes of file content one `edit` reads and writes in all (every old and new content of a
 * patch together): all of them are held in memory until the patch is committed.
 */
export const EDIT_PATCH_MAX_BYTES = 2 * EDIT_MAX_FILE_BYTES
/**
 * Characters of an `edit` patch's text: the most one stdio message holds (10 MiB); over HTTP the
 * body limit (HTTP_MAX_BODY_BYTES) bounds it first.
 */
export const EDIT_PATCH_MAX_CHARS = 10 * 1024 * 1024
/**
 * Bytes of files that edits of one server may hold in memory at once (summed over the files being
 * edited); an edit that would pass it waits for others to end, and one edit always runs. An edit
 * holds about five times its file's size at its peak, so edits together stay near 700 MB.
 */
export const EDIT_MAX_BYTES_IN_FLIGHT = 2 * EDIT_MAX_FILE_BYTES
/**
 * How long an edit waits for another ak server's replace lock on the same file (see
 * replace-lock.ts), in ms. The lock is held only for a check and a rename, so a wait this long
 * means its holder is stuck.
 */
export const EDIT_LOCK_WAIT_MS = 10_000
/** Age (ms) past which a replace lock is taken over even if its process still seems to run (a reused pid). */
export const EDIT_LOCK_STALE_MS = 60_000
/**
 * Bytes of a replace lock file read at most: a lock holds a pid, 16 hex digits and, on Linux, its
 * holder's boot id, PID namespace and start time (about 110 bytes). A larger file at a lock's
 * name is not a lock an ak server wrote and is stale only by its age.
 */
export const EDIT_LOCK_MAX_BYTES = 256

/** Matching lines `search` returns when the call names no `max_results`. */
export const SEARCH_DEFAULT_MAX_RESULTS = 200

/** The largest `max_results` a `search` call may ask for. */
export const SEARCH_MAX_RESULTS = 10_000

/**
 * Characters (code points) of matching lines, or of paths, that one `search` answer holds at most,
 * as `read` does (READ_MAX_ANSWER_CHARS); the answer then says it stopped and how to narrow it.
 */
export const SEARCH_MAX_ANSWER_CHARS = 100_000

/** Characters of one matching line `search` shows; longer lines are clipped around the match. */
export const SEARCH_MAX_LINE_CHARS = 300

/**
 * Wall time one `search` call may take, in ms, before its workers are terminated (and replaced)
 * and the call fails. Operators can change it with the `AK_SEARCH_TIME_LIMIT_MS` environment
 * variable.
 */
export const SEARCH_TIME_LIMIT_MS = 30_000

/** Files larger than this (bytes) are not searched; the answer names them. */
export const SEARCH_MAX_FILE_BYTES = 16 * 1024 * 1024

/**
 * Bytes of one ignore file (`.gitignore`, `.git/info/exclude`) `search` reads (256 KiB); the rules
 * past it are skipped and the answer says so.
 */
export const IGNORE_FILE_MAX_BYTES = 256 * 1024
/**
 * Bytes of one line of an ignore file `search` uses as a rule (4096, the longest path Linux
 * accepts); a longer line is skipped and the answer says so.
 */
export const IGNORE_FILE_MAX_LINE_BYTES = 4096

/** Upper bound on search worker threads, whatever the machine's parallelism. */
export const SEARCH_MAX_WORKERS = 8

/** Largest HTTP request body ak reads (4 MiB); a bigger body is answered 413 before it is parsed. */
export const HTTP_MAX_BODY_BYTES = 4 * 1024 * 1024
/**
 * A 2025-era HTTP session with no request and no open GET event stream for this long (5 minutes)
 * expires: it ends like a DELETE, stopping every command it still runs. Counted from the end of
 * its last request or stream. Some clients (Gemini CLI, the MCP Inspector) never send DELETE, so
 * this is how long the commands of a client that went away keep running; a client that polls a
 * command (write_stdin) or holds its stream open keeps its session.
 */
export const HTTP_SESSION_IDLE_MS = 5 * 60 * 1000
/**
 * `ak exec serve --http`: a connection whose request headers are not complete after this long
 * (10 s) is answered 408 and closed, so slow senders cannot hold sockets.
 */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000
/**
 * `ak exec serve --http`: a connection whose request (headers and body) is not complete after
 * this long (60 s) is answered 408 and closed. Answers may take longer; this bounds sending only.
 */
export const HTTP_REQUEST_TIMEOUT_MS = 60_000
/**
 * `ak exec serve --http`: connections open at once (512, two per 2025-era session at the
 * session limit); further ones are closed as soon as they are accepted, until some end.
 */
export const HTTP_MAX_CONNECTIONS = 512

/**
 * Bytes a workspace's journal of changes keeps by default (DESIGN §4.10): the content files had
 * before each change, each distinct content once, plus the records. Past it the oldest changes go
 * first; the newest change is kept whatever its size.
 */
export const JOURNAL_DEFAULT_MAX_BYTES = 256 * 1024 * 1024
/** Bytes of one journal record (the list of files a change touched) read at most; ak writes far less. */
export const JOURNAL_ENTRY_MAX_BYTES = 16 * 1024 * 1024
/**
 * Age (ms) past which a change recorded as in progress by a process this one cannot check (one in
 * another PID namespace) is taken for one a crash cut short, and settled. 10 minutes: the largest
 * change ak makes is written in seconds.
 */
export const JOURNAL_PENDING_STALE_MS = 10 * 60 * 1000
