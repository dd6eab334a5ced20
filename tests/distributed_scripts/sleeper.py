"""Says it has started, then sleeps: the launcher test interrupts it."""
import time

print("started", flush=True)
time.sleep(120)
