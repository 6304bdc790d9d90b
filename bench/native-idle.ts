// A peer run for the idle-CPU figure of bench/member.ts (not a test): node-datachannel alone, with
// no papo code, two PeerConnections in this process linked by one data channel over loopback, then
// idle. What this process uses is the native library's floor (its threads: ICE, DTLS, and the SCTP
// timer), against which the transport process's idle CPU is read.
import nodeDataChannel from 'node-datachannel';

const a = new nodeDataChannel.PeerConnection('idle-a', { iceServers: [] });
const b = new nodeDataChannel.PeerConnection('idle-b', { iceServers: [] });
a.onLocalDescription((sdp, type) => b.setRemoteDescription(sdp, type));
b.onLocalDescription((sdp, type) => a.setRemoteDescription(sdp, type));
a.onLocalCandidate((cand, mid) => b.addRemoteCandidate(cand, mid));
b.onLocalCandidate((cand, mid) => a.addRemoteCandidate(cand, mid));
b.onDataChannel((dc) => dc.onMessage(() => undefined));
const channel = a.createDataChannel('idle');
channel.onOpen(() => process.stdout.write('open\n'));
// Kept alive until the benchmark kills it.
setInterval(() => undefined, 60_000);
