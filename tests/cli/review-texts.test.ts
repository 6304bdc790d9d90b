// The texts of `papo review` that ADR 0095 added or changed, exact, in English and Brazilian
// Portuguese (src/cli/review-texts.ts): what an allow rule is bound to, a name the room has not
// seen, the persons `--people` let through, and what `review on` says of the unread messages.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reviewTexts } from '../../src/cli/review-texts.js';

const en = reviewTexts('en');
const pt = reviewTexts('pt');
const dave = { name: 'dave', agent: '1a2b3c4d5e', human: '9f8e7d6c5b', moved: false };

test('papo review: an allow rule shows the keys it lets through, or why it lets nothing through', () => {
  assert.equal(
    en.allowed(
      [dave, { name: 'eve', agent: '1a2b3c4d5e', moved: true }, { name: 'old', moved: false }],
      ['ana', 'bia'],
    ),
    "Always let through: dave (its agent's key 1a2b3c4d5e and its person's key 9f8e7d6c5b); eve (its agent's key 1a2b3c4d5e; another key holds the name now, and waits for you); old (bound to no key, so nothing passes: papo review allow old again); the persons of ana, bia (papo say).",
  );
  assert.equal(en.allowed([], []), 'Always let through: nobody.');
  assert.equal(
    pt.allowed(
      [dave, { name: 'eve', human: '9f8e7d6c5b', moved: true }, { name: 'old', moved: false }],
      ['ana'],
    ),
    'Sempre passam: dave (a chave do agente 1a2b3c4d5e e a chave da pessoa 9f8e7d6c5b); eve (a chave da pessoa 9f8e7d6c5b; outra chave tem o nome agora, e espera por você); old (ligada a nenhuma chave, então nada passa: papo review allow old de novo); as pessoas de ana (papo say).',
  );
  assert.equal(pt.allowed([], []), 'Sempre passam: ninguém.');
});

test('papo review allow: what was bound, a name not seen yet, the persons let through', () => {
  assert.equal(
    en.allowAdded('dave', dave),
    "Messages from dave now reach your agent without waiting for you (unless they hold a hold pattern): its agent's key 1a2b3c4d5e and its person's key 9f8e7d6c5b. Another key that claims the name later waits for you.",
  );
  assert.equal(
    pt.allowAdded('dave', dave),
    'As mensagens de dave agora chegam ao seu agente sem esperar por você (a menos que contenham um padrão de retenção): a chave do agente 1a2b3c4d5e e a chave da pessoa 9f8e7d6c5b. Outra chave que reivindicar o nome depois espera por você.',
  );
  assert.equal(
    en.notSeen('dave'),
    'papo has not seen dave in this room yet, so there is no key to bind the rule to; nothing changed. Run it again once dave has been online (papo status lists the members).',
  );
  assert.equal(
    pt.notSeen('dave'),
    'o papo ainda não viu dave nesta sala, então não há chave a que ligar a regra; nada mudou. Rode de novo quando dave tiver estado online (o papo status lista os membros).',
  );
  assert.equal(
    en.peopleAdded(['ana', 'bia']),
    'Messages from the persons of ana, bia (papo say) now reach your agent without waiting for you (unless they hold a hold pattern). Only theirs: a person who joins later waits for you (papo review allow --people again adds them).',
  );
  assert.equal(
    pt.peopleAdded(['ana']),
    'As mensagens das pessoas de ana (papo say) agora chegam ao seu agente sem esperar por você (a menos que contenham um padrão de retenção). Só as delas: uma pessoa que entrar depois espera por você (papo review allow --people de novo a inclui).',
  );
  assert.match(
    en.noPeopleKnown,
    /^papo knows no other member's person in this room yet, .*nothing changed\./,
  );
  assert.match(
    pt.noPeopleKnown,
    /^o papo ainda não conhece a pessoa de nenhum outro membro nesta sala, .*nada mudou\./,
  );
  assert.equal(
    en.allowRemoved(en.people),
    'Messages from the persons you allowed (papo say) wait for you again.',
  );
});

test('papo review on: the messages already unread, one and many', () => {
  assert.equal(
    en.unreadBefore(1),
    "1 message that came before is unread in your agent's inbox and is not held: your agent may have been shown it already, and reads it as it is. papo log shows the text:",
  );
  assert.equal(
    en.unreadBefore(2),
    "2 messages that came before are unread in your agent's inbox and are not held: your agent may have been shown them already, and reads them as they are. papo log shows the text:",
  );
  assert.equal(en.unreadMore(5), '  … and 5 more (papo log).');
  assert.equal(
    pt.unreadBefore(1),
    '1 mensagem que chegou antes está não lida na caixa de entrada do seu agente e não está retida: o seu agente pode já tê-la recebido, e a lê como está. O papo log mostra o texto:',
  );
  assert.equal(
    pt.unreadBefore(3),
    '3 mensagens que chegaram antes estão não lidas na caixa de entrada do seu agente e não estão retidas: o seu agente pode já tê-las recebido, e as lê como estão. O papo log mostra o texto:',
  );
  assert.equal(pt.unreadMore(5), '  … e mais 5 (papo log).');
});
