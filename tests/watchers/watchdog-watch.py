# SPDX-License-Identifier: GPL-2.0-or-later
#
# Prints what Python watchdog's default Observer reports for a directory
# tree, one "EventClass path [dest]" line each (paths relative to the
# root), after a first line naming the observer class and READY once it
# watches. Run by watchdog.sh with Debian's /usr/bin/python3.
import os
import sys
import time

from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer


class Printer(FileSystemEventHandler):
    def __init__(self, root):
        self.root = root

    def rel(self, path):
        return os.path.relpath(path, self.root)

    def on_any_event(self, event):
        line = [type(event).__name__, self.rel(event.src_path)]
        if getattr(event, "dest_path", ""):
            line.append(self.rel(event.dest_path))
        print(" ".join(line), flush=True)


def main():
    root = sys.argv[1]
    observer = Observer()
    print(type(observer).__name__, flush=True)
    observer.schedule(Printer(root), root, recursive=True)
    observer.start()
    print("READY", flush=True)
    try:
        while observer.is_alive():
            time.sleep(1)
    finally:
        observer.stop()


main()
