#!/usr/bin/env node
console.log('papo');
