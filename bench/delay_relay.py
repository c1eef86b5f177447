#!/usr/bin/env python3
"""A TCP relay that adds a fixed one-way delay in each direction: this kernel
has no netem, so bench/rpc_vs_llamacpp.sh puts one in front of each rpc-server
(and each fitcheck serve) to give a shaped link its round trip.
Usage: delay_relay.py LISTEN_ADDR:PORT TARGET_ADDR:PORT ONE_WAY_MS
Each chunk read is written on after ONE_WAY_MS, in order; bandwidth is left to
tc. Runs until killed."""
import asyncio, collections, socket, sys, time

def split(a):
    h, p = a.rsplit(":", 1)
    return h, int(p)

async def pump(reader, writer, delay):
    q = collections.deque()
    ev = asyncio.Event()
    done = False
    async def sender():
        while True:
            while not q:
                if done:
                    writer.close()
                    return
                ev.clear()
                await ev.wait()
            due, data = q[0]
            now = time.monotonic()
            if due > now:
                await asyncio.sleep(due - now)
            q.popleft()
            writer.write(data)
            await writer.drain()
    task = asyncio.ensure_future(sender())
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                break
            q.append((time.monotonic() + delay, data))
            ev.set()
    except (ConnectionError, OSError):
        pass
    done = True
    ev.set()
    try:
        await task
    except (ConnectionError, OSError):
        pass

async def handle(cr, cw, target, delay):
    try:
        ur, uw = await asyncio.open_connection(*target)
    except OSError:
        cw.close()
        return
    for w in (cw, uw):
        w.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    await asyncio.gather(pump(cr, uw, delay), pump(ur, cw, delay))

async def main():
    listen, target, ms = split(sys.argv[1]), split(sys.argv[2]), float(sys.argv[3])
    srv = await asyncio.start_server(lambda r, w: handle(r, w, target, ms / 1000.0), *listen)
    print(f"relay {sys.argv[1]} -> {sys.argv[2]}, {ms} ms each way", flush=True)
    async with srv:
        await srv.serve_forever()

asyncio.run(main())
