#!/usr/bin/env node
import '../dist/replay-cli.js';
