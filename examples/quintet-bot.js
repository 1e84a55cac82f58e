#!/usr/bin/env node
// A small Quinto and Quintus bot speaking the quintet bot protocol, version 1
// (docs/bot-protocol.md): one JSON object per line on standard input and output.
//
//   quintet arena --game quinto --bots "cmd:node examples/quintet-bot.js",random --deals 10
//
// Strategy (simple on purpose): pass in Quinto's doubling round; in the Quintus auction
// bid the lowest bid with four or more aces and court cards, else pass; name as trump the
// suit it holds most of; never declare nil; always meld; never signal. In play: throw the
// joker on a partner's winning trick, otherwise win the trick with the lowest card that
// wins it if the trick holds a five or a court card, else play the lowest card.
'use strict';

const readline = require('readline');

const RANKS = '23456789TJQKA';
const SUITS = 'SCDH';
const isCard = (text) => /^([2-9TJQKA][SCDH]|JK)$/.test(text);
const rank = (card) => RANKS.indexOf(card[0]);
const suit = (card) => card[1];

let hand = null; // the new_hand message of the hand in play
let tricks = []; // the tricks won so far: {winner, cards}

function send(message) {
  process.stdout.write(JSON.stringify(message) + '\n');
}

// Does card a beat card b in the trick? Quinto: one sequence, spades low, hearts high,
// the joker never wins. Quintus: trumps beat the rest; otherwise only the suit led counts.
function beats(a, b, led, trump) {
  if (a === 'JK') return false;
  if (b === 'JK') return true;
  if (hand.game === 'quinto') return SUITS.indexOf(suit(a)) * 13 + rank(a) > SUITS.indexOf(suit(b)) * 13 + rank(b);
  if (suit(a) === suit(b)) return rank(a) > rank(b);
  if (suit(a) === trump) return true;
  if (suit(b) === trump) return false;
  return suit(a) === led;
}

function winning(trick, trump) {
  let best = trick[0];
  for (const play of trick.slice(1)) {
    if (beats(play.card, best.card, suit(trick[0].card), trump)) best = play;
  }
  return best;
}

function partners(a, b) {
  if (a === b) return true;
  if (hand.game === 'quinto') return (a - b + 4) % 2 === 0;
  const q = hand.quintus;
  return q !== null && a !== q && b !== q && (a - q + 5) % 5 % 2 === (b - q + 5) % 5 % 2;
}

function playCard(request, cards) {
  const byRank = [...cards].sort((x, y) => rank(x) - rank(y));
  const lowest = byRank.find((c) => c !== 'JK') || byRank[0];
  const trick = request.trick;
  if (trick.length === 0) return lowest;
  const best = winning(trick, hand.trump);
  if (cards.includes('JK') && partners(best.seat, request.seat)) return 'JK';
  const valuable = trick.some((p) => p.card[0] === '5' || 'JQK'.includes(p.card[0]));
  if (valuable && !partners(best.seat, request.seat)) {
    const winner = byRank.find((c) => beats(c, best.card, suit(trick[0].card), hand.trump));
    if (winner) return winner;
  }
  return lowest;
}

function decide(request) {
  const legal = request.legal;
  const cards = legal.filter(isCard);
  if (cards.length > 0) return playCard(request, cards);
  const find = (prefix) => legal.find((a) => a.startsWith(prefix));
  if (legal.includes('pass') && hand.game === 'quinto') return 'pass';
  if (find('bid')) {
    const strong = (request.hand || []).filter((c) => 'JQKA'.includes(c[0])).length;
    return strong >= 4 ? find('bid') : 'pass';
  }
  if (find('trump')) {
    const count = (s) => (request.hand || []).filter((c) => suit(c) === s).length;
    const best = [...SUITS].sort((x, y) => count(y) - count(x))[0];
    return 'trump ' + best;
  }
  if (find('nil')) return 'nil none';
  return find('meld') || legal[0];
}

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on('line', (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case 'hello':
      send({ type: 'ready', name: 'quintet-bot.js', protocol: 'quintet-bot', version: 1 });
      break;
    case 'new_hand':
      hand = message;
      hand.trump = null;
      tricks = [];
      break;
    case 'event':
      if (message.event === 'action' && message.action.type === 'trump') hand.trump = message.action.suit;
      if (message.event === 'quintus') hand.quintus = message.seat;
      if (message.event === 'trick') tricks.push({ winner: message.winner, cards: message.cards });
      break;
    case 'decide':
      send({ type: 'action', action: decide(message) });
      break;
    case 'signal?':
      send({ type: 'pass' });
      break;
    case 'end_hand':
      hand = null;
      break;
    case 'quit':
      process.exit(0);
  }
});
input.on('close', () => process.exit(0));
