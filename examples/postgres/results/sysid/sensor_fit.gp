# qctl plot sensor_fit: run `gnuplot sensor_fit.gp` in this folder to redraw
# sensor_fit.svg, sensor_fit.png and (with the pdfcairo terminal) sensor_fit.pdf
set terminal svg size 800,500 dynamic enhanced font 'sans,12'
set output 'sensor_fit.svg'
set grid
set datafile separator ','
set datafile missing ''
set key outside bottom center horizontal
set title 'sensor: measured vs ARX prediction'
set xlabel 'time (s)'
set ylabel 'measured y'
set arrow from 69, graph 0 to 69, graph 1 nohead dt 2 lc rgb 'gray40'
set label 'validation' at 69, graph 0.95 offset 1,0
plot 'sensor_fit.csv' using 1:3 every ::1 with lines lw 1.5 lc rgb '#1f77b4' title 'measured', '' using 1:4 every ::1 with lines lw 1 lc rgb '#ff7f0e' title 'one-step prediction', '' using 1:5 every ::1 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title 'simulated from u'
set terminal pngcairo size 800,500 enhanced font 'sans,10'
set output 'sensor_fit.png'
replot
unset output
if (strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16cm,10cm enhanced font 'sans,9'
    set output 'sensor_fit.pdf'
    replot
    unset output
}
