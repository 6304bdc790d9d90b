// What `papo status` and `papo say` tell a person about members on the signal server that no path
// reaches (docs/transport.md, "Network health"), in English and pt-BR, exact; and `papo forget` is
// not offered for those waited for while they are on the signal server.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messages } from '../../src/cli/i18n.js';

const en = messages('en');
const pt = messages('pt');
const URL = 'wss://signal.example.test';

test('no path, in English: who, why and the fix for each reason', () => {
  const head =
    'warning: colega is on the signal server wss://signal.example.test (not gone from the room), but no network path between your machines works: no link formed within 12s.';
  assert.equal(
    en.noPath(['colega'], 0, URL, 12, 'no_turn', 'welcome'),
    `${head} The signal server hands out no TURN relay, and a direct path does not work between these networks (a symmetric NAT, or UDP blocked): install coturn on the signal server (papo signal starts it when turnserver is on PATH) or set PAPO_TURN_URLS and PAPO_TURN_SECRET there; or point each member at a TURN relay with PAPO_ICE_SERVERS`,
  );
  assert.equal(
    en.noPath(['colega'], 0, URL, 12, 'no_turn', 'env'),
    `${head} PAPO_ICE_SERVERS names no TURN relay, and a direct path does not work between these networks (a symmetric NAT, or UDP blocked): add a TURN relay to PAPO_ICE_SERVERS`,
  );
  assert.equal(
    en.noPath(['colega'], 0, URL, 12, 'relay_without_turn', 'default'),
    `${head} PAPO_ICE_POLICY=relay allows relayed paths only and no TURN relay is configured: unset PAPO_ICE_POLICY, or give papo a TURN relay (PAPO_ICE_SERVERS, or a signal server that hands one out)`,
  );
  assert.equal(
    en.noPath(['colega'], 0, URL, 12, 'turn_limited', 'welcome'),
    `${head} The signal server has a TURN relay but hands this machine none for now (this address had its share): a signal token for that server (PAPO_SIGNAL_TOKEN) lifts the limit`,
  );
  assert.equal(
    en.noPath(['colega'], 0, URL, 12, 'turn_failed', 'welcome'),
    `${head} A TURN relay is configured, yet no path formed through it (unreachable from one machine, or refusing its credentials): run papo doctor on both machines`,
  );
  assert.match(
    en.noPath(['colega', 'your agent'], 1, URL, 12, 'no_turn', 'welcome'),
    /^warning: colega and your agent and a member not met yet are on the signal server/,
  );
});

test('no path, in pt-BR: who, why and the fix for each reason', () => {
  const head =
    'aviso: colega está no servidor de sinalização wss://signal.example.test (não saiu da sala), mas nenhum caminho de rede entre as máquinas funciona: nenhum link se formou em 12s.';
  assert.equal(
    pt.noPath(['colega'], 0, URL, 12, 'no_turn', 'welcome'),
    `${head} O servidor de sinalização não fornece nenhum relay TURN, e um caminho direto não funciona entre estas redes (um NAT simétrico, ou UDP bloqueado): instale o coturn no servidor de sinalização (o papo signal o inicia quando turnserver está no PATH) ou defina PAPO_TURN_URLS e PAPO_TURN_SECRET lá; ou aponte cada membro para um relay TURN com PAPO_ICE_SERVERS`,
  );
  assert.equal(
    pt.noPath(['colega'], 0, URL, 12, 'no_turn', 'env'),
    `${head} PAPO_ICE_SERVERS não tem nenhum relay TURN, e um caminho direto não funciona entre estas redes (um NAT simétrico, ou UDP bloqueado): acrescente um relay TURN a PAPO_ICE_SERVERS`,
  );
  assert.equal(
    pt.noPath(['colega'], 0, URL, 12, 'relay_without_turn', 'default'),
    `${head} PAPO_ICE_POLICY=relay só permite caminhos retransmitidos e nenhum relay TURN está configurado: remova PAPO_ICE_POLICY, ou dê ao papo um relay TURN (PAPO_ICE_SERVERS, ou um servidor de sinalização que forneça um)`,
  );
  assert.equal(
    pt.noPath(['colega'], 0, URL, 12, 'turn_limited', 'welcome'),
    `${head} O servidor de sinalização tem um relay TURN mas não fornece nenhum a esta máquina por ora (este endereço já teve a sua parte): um token para esse servidor (PAPO_SIGNAL_TOKEN) tira o limite`,
  );
  assert.equal(
    pt.noPath(['colega'], 0, URL, 12, 'turn_failed', 'welcome'),
    `${head} Há um relay TURN configurado, mas nenhum caminho se formou por ele (inalcançável de uma das máquinas, ou recusando as credenciais): rode papo doctor nas duas máquinas`,
  );
  assert.match(
    pt.noPath(['colega'], 2, URL, 12, 'no_turn', 'welcome'),
    /^aviso: colega e 2 membros ainda não vistos estão no servidor de sinalização .* \(não saíram da sala\)/,
  );
});

test('who the queue waits for: papo forget only when someone waited for is not on the signal server', () => {
  const waiting = [{ name: 'colega', count: 2 }];
  assert.equal(
    en.queuedFor(waiting, '', true),
    'Waiting for: colega (2). Someone who left for good: papo forget NAME.',
  );
  assert.equal(en.queuedFor(waiting, '', false), 'Waiting for: colega (2).');
  assert.equal(
    pt.queuedFor(waiting, ' --profile x', true),
    'Esperando por: colega (2). Quem saiu de vez: papo forget NOME --profile x.',
  );
  assert.equal(pt.queuedFor(waiting, '', false), 'Esperando por: colega (2).');
});
