// The person's texts of a pinned signal address (ADR 0089), exact, in English and pt-BR: the
// problem `pin_mismatch` as `papo status` and `papo say` print it, `papo join`'s one line on the
// server, and the fragment errors of signal-url.ts translated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorText, messages } from '../../src/cli/i18n.js';
import { decodeInvite, encodeInvite } from '../../src/client/wire/invite.js';
import { parseSignalUrl } from '../../src/client/wire/signal-url.js';

const URL = 'wss://signal.example.test:8443';

test('pin_mismatch and the join check, exact, in English and pt-BR', () => {
  const en = messages('en');
  const pt = messages('pt');
  assert.equal(
    en.signalProblem('pin_mismatch', URL, 'whatever the socket said'),
    "warning: the signal server wss://signal.example.test:8443 presents a certificate whose key is not the one this room's invite pins: its key changed, or another machine answers at that address; papo sends it nothing. Ask the server's operator; if the key changed, ask for a new invite",
  );
  assert.equal(
    pt.signalProblem('pin_mismatch', URL, 'x'),
    'aviso: o servidor de sinalização wss://signal.example.test:8443 apresenta um certificado cuja chave não é a que o convite desta sala fixa: a chave dele mudou, ou outra máquina responde nesse endereço; o papo não manda nada a ele. Pergunte a quem opera o servidor; se a chave mudou, peça um convite novo',
  );
  assert.equal(
    en.joinCheck('accepted', URL, ''),
    "The signal server wss://signal.example.test:8443 answers and accepts this room's token.",
  );
  assert.equal(en.joinCheck('welcome', URL, ''), 'The signal server wss://signal.example.test:8443 answers.');
  assert.equal(
    en.joinCheck('unauthorized', URL, 'HTTP 401'),
    "warning: the signal server wss://signal.example.test:8443 answers but refuses this room's token (HTTP 401): ask for a new invite, or set PAPO_SIGNAL_TOKEN=wss://signal.example.test:8443=<token>",
  );
  assert.equal(
    en.joinCheck('unreachable', URL, 'connect ECONNREFUSED 127.0.0.1:8443'),
    'note: the signal server wss://signal.example.test:8443 does not answer now (connect ECONNREFUSED 127.0.0.1:8443); the room is kept, and papo meets the others there once it answers (papo doctor checks it)',
  );
  assert.equal(
    en.joinCheck('not_papo', URL, 'HTTP 404'),
    "warning: wss://signal.example.test:8443 does not answer as a papo signal server should (HTTP 404); check the invite's signal address (papo doctor says more)",
  );
  assert.equal(
    en.joinCheck('token_invalid', URL, 'PAPO_SIGNAL_TOKEN is wrong'),
    'warning: PAPO_SIGNAL_TOKEN is wrong',
  );
  assert.equal(
    pt.joinCheck('accepted', URL, ''),
    'O servidor de sinalização wss://signal.example.test:8443 responde e aceita o token desta sala.',
  );
  assert.equal(
    pt.joinCheck('welcome', URL, ''),
    'O servidor de sinalização wss://signal.example.test:8443 responde.',
  );
  assert.equal(
    pt.joinCheck('unreachable', URL, 'ECONNREFUSED'),
    'nota: o servidor de sinalização wss://signal.example.test:8443 não responde agora (ECONNREFUSED); a sala fica guardada, e o papo encontra os outros lá quando ele responder (o papo doctor o verifica)',
  );
  assert.equal(pt.joinCheck('token_invalid', URL, 'algo'), 'aviso: algo');
  for (const outcome of ['unauthorized', 'pin_mismatch', 'not_papo'] as const)
    assert.match(pt.joinCheck(outcome, URL, 'd'), /^aviso: /);
});

test('a certificate TLS refused, by its problem, exact, in English and pt-BR (papo join and papo doctor)', () => {
  const en = messages('en');
  const pt = messages('pt');
  assert.equal(
    en.joinCertificate(URL, 'self_signed'),
    "warning: the signal server wss://signal.example.test:8443 presents a self-signed certificate, and the room's address pins no key for it; papo sends it nothing. Ask the server's operator for the papo new line papo signal --public prints (its address pins the key), make the room with it, and join with the new invite; or trust the certificate with NODE_EXTRA_CA_CERTS=/path/to/cert.pem",
  );
  assert.equal(
    pt.joinCertificate(URL, 'self_signed'),
    'aviso: o servidor de sinalização wss://signal.example.test:8443 apresenta um certificado autoassinado, e o endereço da sala não fixa nenhuma chave para ele; o papo não manda nada a ele. Peça a quem opera o servidor a linha papo new que o papo signal --public imprime (o endereço dela fixa a chave), crie a sala com ela e entre com o convite novo; ou confie no certificado com NODE_EXTRA_CA_CERTS=/caminho/do/cert.pem',
  );
  const problems: [Parameters<typeof en.certificateProblem>[1], string, string][] = [
    [
      'unknown_ca',
      'the signal server wss://signal.example.test:8443 presents a certificate signed by an authority this machine does not trust',
      'o servidor de sinalização wss://signal.example.test:8443 apresenta um certificado assinado por uma autoridade em que esta máquina não confia',
    ],
    [
      'expired',
      'the signal server wss://signal.example.test:8443 presents a certificate that has expired',
      'o servidor de sinalização wss://signal.example.test:8443 apresenta um certificado vencido',
    ],
    [
      'not_yet_valid',
      'the signal server wss://signal.example.test:8443 presents a certificate that is not valid yet',
      'o servidor de sinalização wss://signal.example.test:8443 apresenta um certificado que ainda não vale',
    ],
    [
      'name_mismatch',
      'the signal server wss://signal.example.test:8443 presents a certificate made for another name than signal.example.test',
      'o servidor de sinalização wss://signal.example.test:8443 apresenta um certificado feito para outro nome que não signal.example.test',
    ],
  ];
  for (const [problem, english, portuguese] of problems) {
    assert.equal(en.certificateProblem(URL, problem), english);
    assert.equal(pt.certificateProblem(URL, problem), portuguese);
    // Each fix is its own sentence, and none is the self-signed one's.
    assert.match(en.certificateFix(problem), /^[A-Z].*[^.]$/);
    assert.notEqual(en.certificateFix(problem), en.certificateFix('self_signed'));
    assert.notEqual(pt.certificateFix(problem), en.certificateFix(problem));
  }
  assert.equal(
    en.certificateProblem('wss://[2001:db8::1]:8443', 'name_mismatch'),
    'the signal server wss://[2001:db8::1]:8443 presents a certificate made for another name than 2001:db8::1',
  );
});

test("a signal address's fragment errors are translated and never show the token", () => {
  const pin = `sha256/${'A'.repeat(43)}`;
  const cases: [() => unknown, string, string][] = [
    [
      () => parseSignalUrl('wss://signal.example.test/#token=tok-one&token=tok-two', '--signal'),
      '--signal has a fragment papo cannot read (two tokens); a signal address may end in #pin=sha256/…&token=… and nothing else',
      '--signal tem um fragmento que o papo não sabe ler (dois tokens); um endereço de sinalização pode terminar em #pin=sha256/…&token=… e nada mais',
    ],
    [
      () => parseSignalUrl('wss://signal.example.test/#secret=hidden-value', 'PAPO_SIGNAL'),
      'PAPO_SIGNAL has a fragment papo cannot read (an unknown part "secret"); a signal address may end in #pin=sha256/…&token=… and nothing else',
      'PAPO_SIGNAL tem um fragmento que o papo não sabe ler (uma parte desconhecida "secret"); um endereço de sinalização pode terminar em #pin=sha256/…&token=… e nada mais',
    ],
    [
      () => parseSignalUrl(`ws://signal.example.test/#pin=${pin}`, '--signal'),
      '--signal carries a certificate pin on a ws:// URL: a pin is for wss:// or https://',
      '--signal traz um pin de certificado numa URL sem TLS: um pin é para wss:// ou https://',
    ],
    [
      () => parseSignalUrl('ws://signal.example.test/#token=tok-one', '--signal'),
      '--signal carries a token for a ws:// server on another machine: it would travel in clear, so papo never sends it (use wss://)',
      '--signal traz um token para um servidor sem TLS em outra máquina: ele viajaria às claras, então o papo nunca o envia (use wss://)',
    ],
  ];
  for (const [run, en, pt] of cases) {
    const err = thrown(run);
    assert.equal(errorText(err, 'en'), en);
    assert.equal(errorText(err, 'pt'), pt);
    assert.doesNotMatch(`${errorText(err, 'en')} ${errorText(err, 'pt')}`, /tok-one|tok-two|hidden-value/);
  }
  const invite = thrown(() =>
    decodeInvite(encodeInvite(new Uint8Array(32), 'wss://signal.example.test/#pin=sha256/short')),
  );
  assert.equal(
    errorText(invite, 'en'),
    "this invite's signal address has a fragment papo cannot read (the pin is not sha256/ and 43 base64url characters); a signal address may end in #pin=sha256/…&token=… and nothing else",
  );
  assert.equal(
    errorText(invite, 'pt'),
    'o endereço de sinalização deste convite tem um fragmento que o papo não sabe ler (o pin não é sha256/ e 43 caracteres base64url); um endereço de sinalização pode terminar em #pin=sha256/…&token=… e nada mais',
  );
});

/** The error `run` throws (it must throw). */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error, nothing thrown');
}
