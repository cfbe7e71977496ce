"""What every worker process of a pool runs first (the surveys' --jobs): ``orphan_watch``."""
import os
import signal
import threading
import time


def orphan_watch(parent):
    """In a worker: ignore SIGINT (Ctrl-C is the parent's to handle: it stops the pool; a worker would
    print a traceback), and exit as soon as the parent process is gone. Killed with SIGKILL, the parent
    cannot stop its workers: without this they would finish their search (minutes, gigabytes for a big
    one) or wait on their queue for ever. The watch is a thread: the C core releases the GIL, so it runs
    during a long search too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()
