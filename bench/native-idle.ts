// A peer run for the idle-CPU figure of bench/member.ts (not a test): node-datachannel alone, with
// no papo code, two PeerConnections in this process linked by one data channel over loopback, then
// idle. What this process uses is the native library's floor (its threads: ICE, DTLS, and the SCTP
// timer), against which the transport process's idle CPU is read.
import nodeDataChannel from 'node-datachannel';

const a = new nodeDataChannel.PeerConnection('idle-a', { iceServers: [] });
const b = new nodeDataChannel.PeerConnection('idle-b', { iceServers: [] });
// node-datachannel calls back from separate queues: a candidate may come before the description
// it belongs to, and adding it then aborts the process. Each side's candidates wait for it.
function wire(from: nodeDataChannel.PeerConnection, to: nodeDataChannel.PeerConnection): void {
  let described = false;
  const early: Array<[string, string]> = [];
  from.onLocalDescription((sdp, type) => {
    to.setRemoteDescription(sdp, type);
    described = true;
    for (const [cand, mid] of early.splice(0)) to.addRemoteCandidate(cand, mid);
  });
  from.onLocalCandidate((cand, mid) => {
    if (described) to.addRemoteCandidate(cand, mid);
    else early.push([cand, mid]);
  });
}
wire(a, b);
wire(b, a);
b.onDataChannel((dc) => dc.onMessage(() => undefined));
const channel = a.createDataChannel('idle');
channel.onOpen(() => process.stdout.write('open\n'));
// Kept alive until the benchmark kills it.
setInterval(() => undefined, 60_000);
