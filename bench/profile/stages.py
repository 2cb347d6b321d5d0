#!/usr/bin/env python3
"""Where a BackupXe process's CPU time goes, stage by stage, from a sampling profile of the native build.

    perf record -F 999 -g -o run.data -- backupxe events capture.xel > /dev/null
    perf script -i run.data | python3 bench/profile/stages.py 999

Each sample is given to the stage of its innermost frame that names one (docs/performance.md, "Where the time goes,
stage by stage"); the garbage collector's share is also counted apart, whichever stage allocated. CPU seconds are
samples over the sampling frequency. The threads are listed too: the busiest one bounds the wall time on many cores.
"""
import re
import sys
from collections import Counter

# Innermost match wins, so the order within a stack decides, not the order here.
STAGES = [
    ("write", re.compile(r"OutputBuffer__Send|OutputBuffer__FlushAsync|ReportOutput|ConsoleStream|UnixConsoleStream")),
    ("format", re.compile(r"EventListWriter|EventListBatches__Format|Utf8JsonWriter|JsonReportWriter|Rendering_")),
    ("copy out", re.compile(r"EventListBatches__CopyOut")),
    ("decode", re.compile(r"XelBufferDecoder|XelValuePlan|XelStep__Decode|XeEventMapping|TraceMessageParser|XelActionWalk")),
    ("read", re.compile(r"XelBufferWalk|XelFileSource__Steps|XelDecoder__ReadMetadata|XelMetadataParser")),
    ("hand-over", re.compile(r"XelFileSource__Decoded|XelStep__Finish|XelStep__Apply|XelFileSource__Read")),
    ("listing loop", re.compile(r"EventsCommand|EventNames")),
    ("analyse", re.compile(r"BackupXe_Core_|BackupXe_Cli_")),
]
HEAD = re.compile(r"^(.*?)\s+(\d+)\s+[\d.]+:")
GC = re.compile(r"gc_heap|WKS::|SVR::|GCHeap|RhpNew|RhpGcAlloc|GCToEE|RhpCollect|Rhp.*Alloc")


def samples(lines):
    head, frames = None, []
    for line in lines:
        line = line.rstrip("\n")
        if not line:
            if head is not None:
                yield head, frames
            head, frames = None, []
        elif not line[0].isspace():
            head, frames = line, []
        else:
            frames.append(line.strip())
    if head is not None:
        yield head, frames


def stage_of(frames):
    for frame in frames:  # innermost first
        for name, pattern in STAGES:
            if pattern.search(frame):
                return name
    return "runtime, start-up, waits"


def main():
    frequency = float(sys.argv[1]) if len(sys.argv) > 1 else 999.0
    stages, threads, gc, total = Counter(), Counter(), 0, 0
    for head, frames in samples(sys.stdin):
        total += 1
        stages[stage_of(frames)] += 1
        thread = HEAD.match(head)
        threads[f"{thread.group(1)}, {thread.group(2)}" if thread else head] += 1
        gc += any(GC.search(f) for f in frames)
    if total == 0:
        sys.exit("no samples: is perf script's output piped in?")
    print(f"{total} samples, {total / frequency:.2f} CPU s at {frequency:g} Hz")
    print("| stage | CPU s | share |")
    print("|---|---:|---:|")
    for name, count in stages.most_common():
        print(f"| {name} | {count / frequency:.2f} | {100.0 * count / total:.0f} % |")
    print(f"| (of which garbage collection and allocation) | {gc / frequency:.2f} | {100.0 * gc / total:.0f} % |")
    print()
    print("| thread (name, id) | CPU s |")
    print("|---|---:|")
    for name, count in threads.most_common(6):
        print(f"| {name} | {count / frequency:.2f} |")


main()
