package org.wheeltimer.bench;
final class Placeholder { }
