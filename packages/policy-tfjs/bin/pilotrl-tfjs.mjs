#!/usr/bin/env node
import '../dist/tfjs-bin.js';
