"""The engine: the call machine (one table), the call record, and the async driver.

Nothing in here knows which protocol era a call runs on: the era adapter performs the one I/O
step and the driver fires `answer` or `suspend` depending on what it got back.
"""
